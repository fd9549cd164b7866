// The README's start commands, run exactly as written against a fresh data folder:
//   tsx scripts/smoke.ts start   →  `npm start` (after `npm run build`): ready, /login, one API call,
//                                    no demo merchant and no secret in the log; then every other
//                                    command README.md and docs/*.md show that is not a step of `npm test`
//                                    (operator CLI lines, curl examples checked against the answers
//                                    the documents print, migrations); clean SIGTERM exit
//   tsx scripts/smoke.ts dev     →  `npm run dev`: the demo merchant's banner, ready, /login, its
//                                    printed curl answers a full name match
// Each command runs with only PORT and DATA_DIR chosen here (a free port, a temporary folder).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { commandKind, documentedCommands } from "./readme-commands";

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

function bash(command: string, env: NodeJS.ProcessEnv) {
  return spawnSync("bash", ["-c", command], { cwd: root, env, encoding: "utf8", timeout: 120_000 });
}

/** `data` without the fields that differ on every call. */
function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !["timestamp", "paymentId", "checkoutUrl", "expiresAt", "_token", "batch_id", "created_at"].includes(k))
        .map(([k, v]) => [k, stable(v)]),
    );
  }
  return value;
}

/**
 * Every command the documents show (README.md and docs/*.md) that no step of `npm test` runs, run
 * here exactly as written against this server and its database. `$MERCHANT_ID`, `$KEY_ID`,
 * `$PUBLIC_KEY` and `$SECRET_KEY` are what the README says they are (from `merchant create` and
 * `key create`), `$BATCH_ID` the batch its example made; curl lines go to this server instead of port 3000.
 */
async function runDocumentedCommands(base: string, env: NodeJS.ProcessEnv, output: () => string) {
  const vars: Record<string, string> = {};
  const migrations = () => spawnSync("git", ["status", "--porcelain", "prisma/migrations"], { cwd: root, encoding: "utf8" }).stdout;
  const migrationsBefore = migrations();
  let ran = 0;
  // The operator CLI lines first: they create the merchant whose keys the API examples use.
  const all = documentedCommands(root);
  const isCli = (c: { command: string }) => commandKind(c.command) === "cli";
  for (const { command, promised, file } of [...all.filter(isCli), ...all.filter((c) => !isCli(c))]) {
    const kind = commandKind(command);
    if (kind === "step") continue;
    const cmdEnv = { ...env, ...vars };
    const t0 = Date.now();
    if (kind === "cli") {
      const r = bash(command, cmdEnv);
      if (r.status !== 0) fail(`${file} command failed (exit ${r.status}): ${command}\n${r.stderr}${r.stdout}`);
      if (command.includes("--json")) {
        const json = JSON.parse(r.stdout) as { merchantId?: string; keyId?: string; sandbox?: { publicKey: string; secretKey: string } };
        if (command.includes("merchant create")) {
          vars.MERCHANT_ID = json.merchantId!;
          vars.PUBLIC_KEY = json.sandbox!.publicKey;
          vars.SECRET_KEY = json.sandbox!.secretKey;
          // Payments always check the whitelist: the examples below are sent from this machine.
          const wl = bash(`npm run -s cli -- whitelist add --merchant "${vars.MERCHANT_ID}" --ip 127.0.0.1 --label smoke`, cmdEnv);
          if (wl.status !== 0) fail(`could not whitelist 127.0.0.1: ${wl.stderr}`);
        }
        if (command.includes("key create")) vars.KEY_ID = json.keyId!;
      }
    } else if (kind === "curl") {
      if (!vars.SECRET_KEY) fail(`${file}: curl line before any merchant exists: ${command}`);
      const r = bash(command.replaceAll("http://localhost:3000", base), cmdEnv);
      let answer: { status?: string; success?: boolean; data?: unknown };
      try {
        answer = JSON.parse(r.stdout) as typeof answer;
      } catch {
        fail(`${file} curl line did not answer JSON: ${command}\n${r.stdout}${r.stderr}`);
      }
      if (r.status !== 0 || (answer.status !== "success" && answer.success !== true)) fail(`${file} curl line failed: ${command}\n${r.stdout}`, output());
      const made = answer.data as { batch_id?: unknown } | undefined;
      if (typeof made?.batch_id === "string") vars.BATCH_ID = made.batch_id;
      if (promised !== undefined && JSON.stringify(stable((promised as { data?: unknown }).data)) !== JSON.stringify(stable(answer.data))) {
        fail(`${file} promises ${JSON.stringify(promised)} but the server answered ${r.stdout}`);
      }
    } else if (kind === "focused-test") {
      // A focused run: it must pass and run at least one test.
      const r = bash(command, env);
      if (r.status !== 0 || !/\[test\] OK/.test(r.stderr + r.stdout)) fail(`${command} exited ${r.status}:\n${r.stderr}${r.stdout}`);
    } else if (kind === "pan-cpu") {
      // As written, scaled down to a short round as the bench step is.
      const r = bash(command, { ...env, BENCH_SECONDS: "1", BENCH_ROUNDS: "1", BENCH_CONNECTIONS: "10" });
      if (r.status !== 0 || !/ratio [\d.]+x/.test(r.stdout)) fail(`${command} exited ${r.status}:\n${r.stderr}${r.stdout}`);
    } else if (kind === "batch-cpu") {
      // As written, one measured batch after the warm-up.
      const r = bash(command, { ...env, BENCH_BATCHES: "1" });
      if (r.status !== 0 || !/processing ms \d+/.test(r.stdout)) fail(`${command} exited ${r.status}:\n${r.stderr}${r.stdout}`);
    } else if (kind === "migrate") {
      const r = bash(command, env);
      if (r.status !== 0) fail(`${command} exited ${r.status}: ${r.stderr}`);
    } else if (kind === "migration") {
      // With the models unchanged it must find nothing to write, for either database.
      const r = bash(command, env);
      if (r.status !== 0 || (r.stderr.match(/migrations already match the schema/g) ?? []).length !== 2 || migrations() !== migrationsBefore) {
        fail(`${command} did not find the migrations up to date (exit ${r.status}):\n${r.stderr}`);
      }
    } else {
      fail(
        `${file} shows a command that npm test does not run: ${command} (add it to scripts/readme-commands.ts and scripts/smoke.ts, or scripts/test-steps.ts)`,
      );
    }
    ran++;
    // Each line's time, so the slow ones are known (the whole step is on npm test's critical path).
    process.stderr.write(`[smoke start] ${((Date.now() - t0) / 1000).toFixed(1)}s ${kind}: ${command.slice(0, 100)}\n`);
  }
  process.stderr.write(`[smoke start] ran ${ran} documented commands\n`);
}

/** `npm <args>` with its output kept; `stop()` sends SIGTERM to the node server.ts under npm and waits. */
function spawnNpm(args: string[], env: NodeJS.ProcessEnv) {
  const child: ChildProcess = spawn("npm", args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  let exitCode: number | null = null;
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve((exitCode = code))));
  // npm → sh → node server.ts: SIGTERM goes to the server alone, as a process manager would stop it,
  // and npm then exits with the server's own exit code.
  const descendants = (pid: number): number[] => {
    const kids = spawnSync("pgrep", ["-P", String(pid)], { encoding: "utf8" })
      .stdout.split("\n")
      .filter(Boolean)
      .map(Number);
    return kids.flatMap((k) => [k, ...descendants(k)]);
  };
  const isServer = (pid: number) => {
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      return path.basename(argv[0] ?? "") === "node" && argv.some((a) => a === "server.ts" || a.endsWith("dist/server.mjs"));
    } catch {
      return false;
    }
  };
  const stop = async () => {
    if (exitCode === null && child.pid) for (const pid of descendants(child.pid).filter(isServer)) process.kill(pid, "SIGTERM");
    return Promise.race([exited, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 20_000).unref())]);
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
  return { output: () => output, exitCode: () => exitCode, stop };
}

/**
 * A secret key to call with, and the PAN to try: in production a merchant made with the README's
 * operator CLI (no demo merchant may exist); in development the banner's own key and example.
 */
async function smokeCredentials(env: NodeJS.ProcessEnv, dataDir: string, output: string): Promise<{ secretKey: string; pan: { pan: string; name: string } }> {
  if (mode === "start") {
    if (/sk_test_|Password/.test(output)) fail("the production log carries a secret or a password", output);
    if (fs.existsSync(path.join(dataDir, "demo-credentials.json"))) fail("production seeded a demo merchant without SEED_DEMO=true", output);
    // Not spawnSync: a blocked event loop cannot see the server close an idle keep-alive connection,
    // and the next request would be sent on it (a busy machine made that "fetch failed").
    const created = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(
        "npm",
        ["run", "-s", "cli", "--", "merchant", "create", "--name", "Smoke Shop", "--email", "smoke@example.com", "--password", "a-long-password", "--json"],
        { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      child.on("close", (status) => resolve({ status, stdout, stderr }));
    });
    if (created.status !== 0) fail(`cli merchant create exited ${created.status}: ${created.stderr}`);
    return { secretKey: (JSON.parse(created.stdout) as { sandbox: { secretKey: string } }).sandbox.secretKey, pan: { pan: "ABCPK1234F", name: "" } };
  }
  const key = /Secret key\s+(sk_test_\S+)/.exec(output)?.[1];
  const tryBody = /-d '(\{[^']+\})'/.exec(output)?.[1];
  if (!key || !tryBody) fail("the development banner lacks the secret key or the curl example", output);
  return { secretKey: key, pan: JSON.parse(tryBody) as { pan: string; name: string } };
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
  const server = spawnNpm(args, env);

  try {
    const ready = await waitFor(
      "/api/ready",
      async () => {
        if (server.exitCode() !== null) fail(`the server exited with ${server.exitCode()}`, server.output());
        const r = await fetch(`${base}/api/ready`);
        return r.status === 200 ? r : undefined;
      },
      mode === "dev" ? 180_000 : 60_000,
      server.output,
    );
    process.stderr.write(`[smoke ${mode}] ready in ${((Date.now() - started) / 1000).toFixed(1)}s (${ready.status})\n`);

    const login = await fetch(`${base}/login`);
    const html = await login.text();
    if (login.status !== 200 || !/<form/i.test(html)) fail(`/login answered ${login.status}`, server.output());
    if (!/nonce-/.test(login.headers.get("content-security-policy") ?? "")) fail("/login has no nonce CSP", server.output());
    // Next's own chatter (its config's load time, the telemetry notice) is not the server's output.
    if (/Running next\.config|telemetry/i.test(server.output())) fail("Next printed lines of its own", server.output());

    const { secretKey, pan } = await smokeCredentials(env, dataDir, server.output());
    const call = await fetch(`${base}/v1/identity/pan/verify`, {
      method: "POST",
      headers: { Authorization: `Bearer ${secretKey}`, "Content-Type": "application/json" },
      body: JSON.stringify(mode === "start" ? { pan: pan.pan } : pan),
    });
    const body = (await call.json()) as { data?: { status?: string; name_match_result?: string | null } };
    if (call.status !== 200 || body.data?.status !== "VALID") fail(`PAN verify answered ${call.status}: ${JSON.stringify(body)}`, server.output());
    if (mode === "dev" && body.data?.name_match_result !== "MATCH") fail(`the banner's example is not a full match: ${JSON.stringify(body)}`, server.output());

    if (mode === "start") await runDocumentedCommands(base, env, server.output);

    const code = await server.stop();
    if (code !== 0) fail(`SIGTERM ended the server with ${code}`, server.output());
    process.stderr.write(`[smoke ${mode}] OK: ready, /login, PAN verify ${call.status}, clean exit, in ${((Date.now() - started) / 1000).toFixed(1)}s\n`);
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => fail(err instanceof Error ? (err.stack ?? err.message) : String(err)));
