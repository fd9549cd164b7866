// The README's start commands, run exactly as written against a fresh data folder:
//   tsx scripts/smoke.ts start   →  `npm start` (after `npm run build`): ready, /login, one API call,
//                                    no demo merchant and no secret in the log, clean SIGTERM exit
//   tsx scripts/smoke.ts dev     →  `npm run dev`: the demo merchant's banner, ready, /login, its
//                                    printed curl answers a full name match
// Each command runs with only PORT and DATA_DIR chosen here (a free port, a temporary folder).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const root = path.resolve(__dirname, "..");
const mode = process.argv[2];
if (mode !== "start" && mode !== "dev") {
  process.stderr.write("usage: tsx scripts/smoke.ts start|dev\n");
  process.exit(2);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function fail(message: string, output?: string): never {
  process.stderr.write(`[smoke ${mode}] FAILED: ${message}\n`);
  if (output) process.stderr.write(`--- server output ---\n${output.slice(-6000)}\n`);
  process.exit(1);
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs: number, output: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) fail(`timed out waiting for ${what}`, output());
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function main() {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `parakh-smoke-${mode}-`));
  const base = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DATA_DIR: dataDir, NEXT_TELEMETRY_DISABLED: "1" };
  for (const k of ["NODE_ENV", "DATABASE_URL", "SEED_DEMO", "APP_URL", "NEXTAUTH_URL", "HOST"]) delete env[k];
  const args = mode === "start" ? ["start"] : ["run", "dev"];
  process.stderr.write(`[smoke ${mode}] npm ${args.join(" ")} (PORT=${port}, DATA_DIR=${dataDir})\n`);
  const started = Date.now();
  const child: ChildProcess = spawn("npm", args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  let exitCode: number | null = null;
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve((exitCode = code))));
  const stop = async () => {
    if (exitCode === null && child.pid) process.kill(-child.pid, "SIGTERM");
    return Promise.race([exited, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 20_000))]);
  };
  process.on("exit", () => {
    if (exitCode === null && child.pid) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // gone
      }
    }
  });

  try {
    const ready = await waitFor(
      "/api/ready",
      async () => {
        if (exitCode !== null) fail(`the server exited with ${exitCode}`, output);
        const r = await fetch(`${base}/api/ready`);
        return r.status === 200 ? r : undefined;
      },
      mode === "dev" ? 180_000 : 60_000,
      () => output,
    );
    process.stderr.write(`[smoke ${mode}] ready in ${((Date.now() - started) / 1000).toFixed(1)}s (${ready.status})\n`);

    const login = await fetch(`${base}/login`);
    const html = await login.text();
    if (login.status !== 200 || !/<form/i.test(html)) fail(`/login answered ${login.status}`, output);
    if (!/nonce-/.test(login.headers.get("content-security-policy") ?? "")) fail("/login has no nonce CSP", output);

    let secretKey: string;
    let pan = { pan: "ABCPK1234F", name: "" };
    if (mode === "start") {
      if (/sk_test_|Password/.test(output)) fail("the production log carries a secret or a password", output);
      if (fs.existsSync(path.join(dataDir, "demo-credentials.json"))) fail("production seeded a demo merchant without SEED_DEMO=true", output);
      // The operator CLI of the README, on the same database.
      const created = spawnSync("npm", ["run", "-s", "cli", "--", "merchant", "create", "--name", "Smoke Shop", "--email", "smoke@example.com", "--password", "a-long-password", "--json"], { cwd: root, env, encoding: "utf8" });
      if (created.status !== 0) fail(`cli merchant create exited ${created.status}: ${created.stderr}`);
      secretKey = (JSON.parse(created.stdout) as { sandbox: { secretKey: string } }).sandbox.secretKey;
    } else {
      // The banner's own values: the secret key and the example it says to try.
      const key = /Secret key\s+(sk_test_\S+)/.exec(output)?.[1];
      const tryBody = /-d '(\{[^']+\})'/.exec(output)?.[1];
      if (!key || !tryBody) fail("the development banner lacks the secret key or the curl example", output);
      secretKey = key;
      pan = JSON.parse(tryBody) as typeof pan;
    }
    const call = await fetch(`${base}/v1/identity/pan/verify`, {
      method: "POST",
      headers: { Authorization: `Bearer ${secretKey}`, "Content-Type": "application/json" },
      body: JSON.stringify(mode === "start" ? { pan: pan.pan } : pan),
    });
    const body = (await call.json()) as { data?: { status?: string; name_match_result?: string | null } };
    if (call.status !== 200 || body.data?.status !== "VALID") fail(`PAN verify answered ${call.status}: ${JSON.stringify(body)}`, output);
    if (mode === "dev" && body.data?.name_match_result !== "MATCH") fail(`the banner's example is not a full match: ${JSON.stringify(body)}`, output);

    const code = await stop();
    if (code !== 0) fail(`SIGTERM ended the server with ${code}`, output);
    process.stderr.write(`[smoke ${mode}] OK: ready, /login, PAN verify ${call.status}, clean exit, in ${((Date.now() - started) / 1000).toFixed(1)}s\n`);
  } finally {
    await stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => fail(err instanceof Error ? (err.stack ?? err.message) : String(err)));
