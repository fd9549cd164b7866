// `npm run -s restart:haproxy -- --restart '<command>'`: restarts every Parakh instance behind HAProxy,
// one at a time, with no failed request. For each server of the backend in turn: HAProxy stops sending
// it new requests (drain), the requests it has finish, the command restarts it, its /api/ready answers
// 200, HAProxy sends to it again and sees it up; only then is the next one taken out of rotation.
// Options: --socket (HAProxy's admin socket, /run/haproxy/admin.sock), --backend (parakh),
// --restart (a shell command that returns once the old process has stopped, as `systemctl restart`
// does; {server} is the server's name in haproxy.cfg, e.g. 'systemctl restart parakh@{server}'),
// --timeout-seconds (120: the longest wait for each step).
import { spawn } from "node:child_process";
import net from "node:net";
import { parseArgs } from "node:util";

/** One command on HAProxy's runtime API (the admin socket); its whole answer. */
export function runtimeApi(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    const conn = net.connect(socket, () => conn.end(`${command}\n`));
    conn.setEncoding("utf8");
    conn.on("data", (c: string) => (out += c));
    conn.on("end", () => resolve(out));
    conn.on("error", reject);
  });
}

/** Rows of a table HAProxy prints with a `# name name …` header line (CSV for `show stat`, spaces otherwise). */
function table(text: string, separator: string | RegExp): Record<string, string>[] {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const header = lines.find((l) => l.startsWith("# "));
  if (!header) throw new Error(`HAProxy answered without a table:\n${text}`);
  const names = header.slice(2).split(separator);
  return lines
    .filter((l) => !l.startsWith("#") && l.includes(separator instanceof RegExp ? " " : separator))
    .map((l) => {
      const values = l.split(separator);
      return Object.fromEntries(names.map((n, i) => [n, values[i] ?? ""]));
    });
}

export interface BackendServer {
  name: string;
  address: string;
  port: number;
}

/** The servers of `backend`, with the address and port HAProxy sends them requests on. */
export async function serversOf(socket: string, backend: string): Promise<BackendServer[]> {
  const rows = table(await runtimeApi(socket, `show servers state ${backend}`), / +/);
  if (rows.length === 0) throw new Error(`HAProxy has no servers in backend ${backend}`);
  return rows.map((r) => ({ name: r.srv_name!, address: r.srv_addr!, port: Number(r.srv_port) }));
}

/** A line of `show stat` (`server` BACKEND for the backend's totals), by column name. */
export async function statRow(socket: string, backend: string, server: string): Promise<Record<string, string>> {
  const row = table(await runtimeApi(socket, "show stat"), ",").find((r) => r.pxname === backend && r.svname === server);
  if (!row) throw new Error(`HAProxy has no server ${backend}/${server}`);
  return row;
}

/** A server's status (UP, DOWN, DRAIN, MAINT, "UP 1/2"…) and its sessions, current and queued. */
export async function serverStatus(socket: string, backend: string, server: string) {
  const row = await statRow(socket, backend, server);
  return { status: row.status!, sessions: Number(row.scur) + Number(row.qcur) };
}

async function waitFor(what: string, timeoutMs: number, done: () => Promise<boolean>) {
  const deadline = Date.now() + timeoutMs;
  while (!(await done().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs / 1000} s waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The instance /api/ready names when it answers 200 (each start of Parakh has its own id), or null
 * when it is not ready. Undefined: ready, from a version that names no instance.
 */
async function readyInstance(server: BackendServer): Promise<string | undefined | null> {
  const host = net.isIPv6(server.address) ? `[${server.address}]` : server.address;
  const res = await fetch(`http://${host}:${server.port}/api/ready`, { signal: AbortSignal.timeout(2000) });
  const text = await res.text();
  if (res.status !== 200) return null;
  try {
    const instance = (JSON.parse(text) as { instance?: unknown }).instance;
    return typeof instance === "string" ? instance : undefined;
  } catch {
    return undefined;
  }
}

export interface RestartOptions {
  socket: string;
  backend: string;
  /** Restarts one instance; resolves once the old process has stopped (the wait for ready follows). */
  restart: (server: BackendServer) => Promise<void>;
  timeoutMs: number;
  log: (line: string) => void;
}

/** Drains, restarts and brings back each server of the backend in turn; the milliseconds each one took. */
export async function rollingRestart(o: RestartOptions): Promise<{ server: string; ms: number }[]> {
  const servers = await serversOf(o.socket, o.backend);
  const took: { server: string; ms: number }[] = [];
  for (const server of servers) {
    const t0 = Date.now();
    const id = `${o.backend}/${server.name}`;
    // Taking a server out while another is not serving would leave nobody to answer.
    for (const other of servers.filter((s) => s !== server)) {
      await waitFor(`${o.backend}/${other.name} is UP`, o.timeoutMs, async () => (await serverStatus(o.socket, o.backend, other.name)).status === "UP");
    }
    // Which process answers now: after the restart the port must be answered by another one. A
    // restart that failed while the old process kept serving would otherwise pass for a success.
    const before = await readyInstance(server).catch(() => null);
    await command(o.socket, `set server ${id} state drain`);
    o.log(`${id}: draining`);
    await waitFor(`${id} has no sessions left`, o.timeoutMs, async () => (await serverStatus(o.socket, o.backend, server.name)).sessions === 0);
    o.log(`${id}: no sessions left; restarting`);
    await o.restart(server);
    let now: string | undefined | null = null;
    await waitFor(`${id} answers 200 on /api/ready from a new process`, o.timeoutMs, async () => {
      now = await readyInstance(server);
      return now !== null && (now === undefined || now !== before);
    }).catch(async (err: unknown) => {
      if (now === null || now !== before) throw err;
      // The old process still serves: back into rotation as it was, and the operator is told.
      await command(o.socket, `set server ${id} state ready`);
      throw new Error(
        `${id}: the old process (instance ${before}) still answers on ${server.address}:${server.port}; the restart did not replace it, so it is back in rotation unchanged`,
      );
    });
    await command(o.socket, `set server ${id} state ready`);
    await waitFor(`HAProxy sees ${id} UP`, o.timeoutMs, async () => (await serverStatus(o.socket, o.backend, server.name)).status === "UP");
    took.push({ server: server.name, ms: Date.now() - t0 });
    o.log(`${id}: back in rotation after ${Date.now() - t0} ms`);
  }
  return took;
}

/** A runtime API command that answers nothing when it worked. */
async function command(socket: string, line: string) {
  const answer = (await runtimeApi(socket, line)).trim();
  if (answer !== "") throw new Error(`HAProxy refused "${line}": ${answer}`);
}

function shell(commandLine: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", commandLine], { stdio: "inherit" });
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`"${commandLine}" exited ${code}`))));
  });
}

async function main() {
  const { values } = parseArgs({
    options: {
      socket: { type: "string", default: "/run/haproxy/admin.sock" },
      backend: { type: "string", default: "parakh" },
      restart: { type: "string" },
      "timeout-seconds": { type: "string", default: "120" },
    },
  });
  if (!values.restart) throw new Error("--restart '<command>' is required, e.g. --restart 'systemctl restart parakh@{server}'");
  const template = values.restart;
  const took = await rollingRestart({
    socket: values.socket,
    backend: values.backend,
    restart: (server) => shell(template.replaceAll("{server}", server.name)),
    timeoutMs: Number(values["timeout-seconds"]) * 1000,
    log: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(`restarted ${took.map((t) => `${t.server} (${t.ms} ms)`).join(", ")}\n`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
