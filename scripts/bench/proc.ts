import fs from "node:fs";
import path from "node:path";

/**
 * The node flags `npm start` runs the server with (package.json), so the bench measures the same
 * process: `node <flags> --import tsx server.ts`.
 */
export function startNodeFlags(): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, "../../package.json"), "utf8")) as { scripts: { start: string } };
  const m = /\bnode((?: --[^ ]+)*?) --import tsx server\.ts$/.exec(pkg.scripts.start);
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
