import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/**
 * The node flags `npm start` runs the server with (package.json), so the bench measures the same
 * process: `node <flags> --import tsx server.ts`.
 */
export function startNodeFlags(): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, "../../package.json"), "utf8")) as { scripts: { start: string } };
  const m = /\bnode((?: --[^ ]+)*?) dist\/server\.mjs$/.exec(pkg.scripts.start);
  if (!m) throw new Error(`unexpected start script: ${pkg.scripts.start}`);
  return m[1]!.trim().split(" ").filter(Boolean);
}

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces: split after its closing parenthesis). */
export function statFields(pid: number | string): string[] {
  return fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
}

/** The live child processes of `pid` (a cluster's workers), with their /proc/<pid>/stat fields. */
export function childProcesses(pid: number): { pid: number; fields: string[] }[] {
  const children: { pid: number; fields: string[] }[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = statFields(entry);
      if (Number(fields[1]) === pid) children.push({ pid: Number(entry), fields });
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/** A process's children from the kernel's own list (cheaper than walking /proc every sample); none once it is gone. */
export function childPids(pid: number): number[] {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** A process's peak resident memory so far (VmHWM) in MB; 0 once it is gone. */
export function peakRssMbOf(pid: number): number {
  try {
    const hwm = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return hwm ? Number(hwm[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Runs `node <args>` in `cwd`; resolves once it logs that it listens, with the port it took. */
export function startListening(args: string[], cwd: string, env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, PARAKH_ENV_FILE: "none", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  return new Promise((resolve, reject) => {
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /"msg":"listening"[^\n]*"port":(\d+)/.exec(out);
      if (!m) return;
      child.stderr!.off("data", onData);
      child.stderr!.resume();
      resolve({ child, port: Number(m[1]) });
    };
    child.stderr!.on("data", onData);
    child.stdout!.resume();
    child.once("exit", (code) => reject(new Error(`exited ${code}:\n${out}`)));
  });
}

/** SIGTERM, and resolves once the process has exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((r) => {
    if (child.exitCode !== null) return r();
    child.once("exit", () => r());
    child.kill("SIGTERM");
  });
}
