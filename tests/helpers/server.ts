import { spawn, execFile, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPrismaClient, type Db } from "@/server/db/client";
import { applyMigrations } from "@/server/db/migrate";
import { configFrom } from "@/server/config";
import { updateConsentSettings } from "@/server/services/merchants/consent-settings";
import { runCli } from "../../scripts/cli";
import { copySqliteTemplate } from "./test-db";

const ROOT = path.resolve(__dirname, "../..");
const TSX = path.join(ROOT, "node_modules/.bin/tsx");

/** Set by the integration run's global set-up: a folder with the server and CLI bundled from the sources as they are now. */
export const BUNDLE_DIR_ENV = "PARAKH_TEST_BUNDLE_DIR";

/**
 * node's arguments for the server: the run's bundle, as `npm start` runs one, else the sources through
 * the tsx loader. Always node itself, not a launcher: signals must reach the server.
 */
function serverProgram(): string[] {
  const bundle = process.env[BUNDLE_DIR_ENV];
  return bundle ? [path.join(bundle, "server.mjs")] : ["--import", "tsx", "server.ts"];
}

export interface TestServer {
  url: string;
  port: number;
  dataDir: string;
  databaseUrl: string;
  env: NodeJS.ProcessEnv;
  /** The server process (with WEB_CONCURRENCY above 1, the cluster's primary). */
  pid: number;
  logs: () => string;
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

export function tempDataDir(prefix = "parakh-test-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * Starts the real server process (`server.ts`) API-only on a free loopback port, with its own data
 * folder and database, and waits until it listens.
 */
/** `env` adds to the server's environment; a variable given as undefined is left out of it. */
export async function startServer(opts: { databaseUrl?: string; env?: Record<string, string | undefined> } = {}): Promise<TestServer> {
  const dataDir = tempDataDir();
  const databaseUrl = opts.databaseUrl ?? `file:${path.join(dataDir, "parakh.db")}`;
  // A new database starts as a copy of the run's migrated one: the server then has nothing to apply.
  if (!opts.databaseUrl) copySqliteTemplate(path.join(dataDir, "parakh.db"));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    SERVE_PAGES: "false",
    SEED_DEMO: "false",
    LOG_LEVEL: "info",
    // One process unless a test asks for a cluster (production's default is one worker per core).
    WEB_CONCURRENCY: "1",
    // A developer's own .env never reaches the tests' servers.
    PARAKH_ENV_FILE: "none",
    ...opts.env,
  };
  const child: ChildProcess = spawn(process.execPath, serverProgram(), { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 60_000);
    const onData = () => {
      const m = output.match(/"msg":"listening"[^\n]*"port":(\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stderr!.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    databaseUrl,
    env,
    pid: child.pid!,
    logs: () => output,
    stop: async (signal = "SIGTERM") => {
      if (child.exitCode === null) child.kill(signal);
      const code = await exited;
      return code;
    },
  };
}

/** A server's keys: those it was given in its environment, or those it generated into its data folder. */
export function serverKeys(server: TestServer): { hashKey: string; encryptionKey: string; nextAuthSecret: string } {
  const { HASH_KEY, ENCRYPTION_KEY, NEXTAUTH_SECRET } = server.env;
  if (HASH_KEY && ENCRYPTION_KEY && NEXTAUTH_SECRET) return { hashKey: HASH_KEY, encryptionKey: ENCRYPTION_KEY, nextAuthSecret: NEXTAUTH_SECRET };
  return JSON.parse(fs.readFileSync(path.join(server.dataDir, "secrets.json"), "utf8"));
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

/** Runs the operator CLI as a process, exactly as an operator would. */
export function cliProcess(env: NodeJS.ProcessEnv, args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    const bundle = process.env[BUNDLE_DIR_ENV];
    const [program, programArgs] = bundle ? [process.execPath, [path.join(bundle, "cli.mjs")]] : [TSX, ["scripts/cli.ts"]];
    execFile(program, [...programArgs, ...args], { cwd: ROOT, env }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
      resolve({ code, stdout, stderr, json: parseJson(stdout) });
    });
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const cliDatabases = new Map<string, Db>();

/**
 * Runs an operator CLI command against a server's database. In this process when it shares the
 * server's keys (the integration run gives every server and itself the same ones): the same command
 * code, arguments and output, without starting a process per call (each costs seconds of CPU).
 * Otherwise, and for tests of the CLI itself, `cliProcess`.
 */
export async function cli(env: NodeJS.ProcessEnv, args: string[]): Promise<CliResult> {
  const keys = ["ENCRYPTION_KEY", "HASH_KEY", "NEXTAUTH_SECRET"] as const;
  const sameKeys = keys.every((k) => env[k] && env[k] === process.env[k]);
  if (!sameKeys || !env.DATABASE_URL) return cliProcess(env, args);
  const url = env.DATABASE_URL;
  let stdout = "";
  let stderr = "";
  const code = await runCli(
    args,
    async () => {
      let db = cliDatabases.get(url);
      if (!db) {
        // As the CLI does: a database nobody has started a server on yet is migrated first.
        await applyMigrations(url);
        cliDatabases.set(url, (db = createPrismaClient(url)));
      }
      // The server keeps its database open; so does this process, until it ends.
      return { db, close: async () => undefined };
    },
    { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) },
    () => configFrom(env),
  );
  return { code, stdout, stderr, json: parseJson(stdout) };
}

export interface MerchantFixture {
  merchantId: string;
  email: string;
  sandbox: { publicKey: string; secretKey: string; signingSecret: string };
}

let counter = 0;

/** What an operator does for a merchant going live: approve it (`merchant go-live`) and make it a live key. */
export async function approveLiveViaCli(env: NodeJS.ProcessEnv, merchantId: string): Promise<{ keyId: string; publicKey: string; secretKey: string }> {
  const approved = await cli(env, ["merchant", "go-live", "--merchant", merchantId]);
  if (approved.code !== 0) throw new Error(`merchant go-live failed: ${approved.stderr}`);
  const key = await cli(env, ["key", "create", "--merchant", merchantId, "--mode", "live", "--json"]);
  if (key.code !== 0) throw new Error(`live key create failed: ${key.stderr}`);
  return key.json as { keyId: string; publicKey: string; secretKey: string };
}

/** A default purpose for live checks in tests (20-200 characters, C6). */
export const TEST_PURPOSE = "Customer onboarding: identity check before account opening";

/**
 * Gives the merchant a standing consent attestation and a default purpose (C6), as its dashboard
 * settings do, so its live checks need no consent fields of their own. Call it before the live key's
 * first request (the door caches merchant settings with the key until the auth epoch moves).
 */
export async function attestConsent(databaseUrl: string, merchantId: string, purpose = TEST_PURPOSE): Promise<void> {
  const db = createPrismaClient(databaseUrl);
  try {
    await updateConsentSettings(db, merchantId, { purpose, standing: true });
  } finally {
    await db.$disconnect();
  }
}

export async function createMerchantViaCli(env: NodeJS.ProcessEnv, name = "Test Store"): Promise<MerchantFixture> {
  const email = `m${Date.now()}${counter++}@example.com`;
  const r = await cli(env, ["merchant", "create", "--name", name, "--email", email, "--password", "correct-horse-battery", "--json"]);
  if (r.code !== 0) throw new Error(`merchant create failed: ${r.stderr}`);
  return r.json as MerchantFixture;
}
