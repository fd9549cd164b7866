// Throwaway PostgreSQL 15 for tests: a cluster in its own temp folder, 127.0.0.1 on a free port,
// trust auth, fsync off; never a server that was already running. The integration run starts one
// cluster for all its files (tests/helpers/postgres-global-setup.ts) and `startPostgres()` then
// gives each caller fresh databases on it; outside that run (bench, db:migration) each call starts
// a cluster of its own.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";

export interface PostgresCluster {
  /** postgresql:// URL of the database created for the caller. */
  url: string;
  /** Creates another empty database on the same cluster and returns its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

const PG_BIN = process.env.PARAKH_PG_BIN ?? "/usr/lib/postgresql/15/bin";
const SUPERUSER = "postgres";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** PostgreSQL refuses to run as root: pick an unprivileged account to run it as. */
function runAs(): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return undefined;
  for (const user of ["postgres", "nobody"]) {
    try {
      const [, , uid, gid] = execFileSync("getent", ["passwd", user], { encoding: "utf8" }).trim().split(":");
      return { uid: Number(uid), gid: Number(gid) };
    } catch {
      // try the next account
    }
  }
  throw new Error("Running as root and no 'postgres' or 'nobody' account exists to run PostgreSQL as");
}

/** A temp base folder the unprivileged account can reach (every ancestor world-searchable). */
function tempBase(asOther: boolean): string {
  const base = os.tmpdir();
  if (!asOther) return base;
  let dir = base;
  for (;;) {
    if ((fs.statSync(dir).mode & 0o001) === 0) return "/tmp";
    const parent = path.dirname(dir);
    if (parent === dir) return base;
    dir = parent;
  }
}

function reaper(parentPid: number, dir: string, dataDir: string): ChildProcess {
  // Cleans up when this process dies without running exit handlers (SIGKILL, crashes). Runs as
  // the current user, so it signals the postmaster instead of using pg_ctl (which refuses root).
  const script = `while kill -0 ${parentPid} 2>/dev/null; do sleep 1; done
if [ -f "${dataDir}/postmaster.pid" ]; then
  pid=$(head -n 1 "${dataDir}/postmaster.pid"); i=0
  # only if that PID is still our postmaster (PIDs get reused)
  grep -aqF "${dataDir}" "/proc/$pid/cmdline" 2>/dev/null && kill -QUIT "$pid" 2>/dev/null
  while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
fi
rm -rf "${dir}"`;
  const child = spawn("sh", ["-c", script], { detached: true, stdio: "ignore" });
  child.unref();
  return child;
}

/** Set by the integration run's global set-up: the shared cluster's superuser URL, without a database. */
export const SHARED_CLUSTER_ENV = "PARAKH_TEST_PG_URL";
/** Set beside it: a database on that cluster with every migration applied, to copy. */
export const PG_TEMPLATE_ENV = "PARAKH_TEST_PG_TEMPLATE";

/** Fresh databases on a cluster, created now and dropped by `stop()`. */
async function databasesOn(base: string, template: string | undefined): Promise<PostgresCluster> {
  const suffix = `${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const created: string[] = [];
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: `${base}/postgres` });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  const createDatabase = async (name: string) => {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name: ${name}`);
    const full = `${name}_${suffix}`;
    await admin(`CREATE DATABASE "${full}"`);
    created.push(full);
    return `${base}/${full}`;
  };
  let url: string;
  if (template) {
    url = `${base}/parakh_${suffix}`;
    await admin(`CREATE DATABASE "parakh_${suffix}" TEMPLATE "${template}"`);
    created.push(`parakh_${suffix}`);
  } else {
    url = await createDatabase("parakh");
  }
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      for (const name of created) await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
    })());
  return { url, createDatabase, stop };
}

/**
 * Fresh databases on the run's shared cluster when there is one, else a cluster of the caller's own.
 * `migrated`: the first database already has every migration (a copy of the run's template), for
 * callers that only need a working database; without it, it is empty.
 */
export async function startPostgres(options: { migrated?: boolean } = {}): Promise<PostgresCluster> {
  const shared = process.env[SHARED_CLUSTER_ENV];
  return shared ? databasesOn(shared, options.migrated ? process.env[PG_TEMPLATE_ENV] : undefined) : startCluster();
}

/** A cluster of its own, with one database `parakh` for the caller. */
export async function startCluster(options: { maxConnections?: number } = {}): Promise<PostgresCluster & { base: string }> {
  if (!fs.existsSync(path.join(PG_BIN, "initdb")) || !fs.existsSync(path.join(PG_BIN, "postgres"))) {
    throw new Error(`PostgreSQL 15 server binaries not found in ${PG_BIN}. Install them with: apt-get install postgresql (or set PARAKH_PG_BIN).`);
  }
  const user = runAs();
  const dir = fs.mkdtempSync(path.join(tempBase(user !== undefined), "parakh-pg-"));
  const dataDir = path.join(dir, "data");
  const logFile = path.join(dir, "postgres.log");
  if (user) fs.chownSync(dir, user.uid, user.gid);
  const spawnOpts = { ...(user ?? {}), cwd: dir, env: { ...process.env, LC_ALL: "C" } };

  const watchdog = reaper(process.pid, dir, dataDir);
  let postmaster: ChildProcess | undefined;
  const onExit = () => {
    // Immediate shutdown; the reaper removes the folder once this process is gone.
    try {
      if (postmaster?.pid && postmaster.exitCode === null) process.kill(postmaster.pid, "SIGQUIT");
    } catch {
      // already gone
    }
  };
  process.once("exit", onExit);

  const cleanup = () => {
    process.removeListener("exit", onExit);
    try {
      if (watchdog.pid) process.kill(watchdog.pid, "SIGKILL");
    } catch {
      // already gone
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    execFileSync(path.join(PG_BIN, "initdb"), ["-D", dataDir, "-U", SUPERUSER, "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"], {
      ...spawnOpts,
      stdio: ["ignore", "ignore", "pipe"],
    });
    const port = await freePort();
    const log = fs.openSync(logFile, "a");
    if (user) fs.fchownSync(log, user.uid, user.gid);
    postmaster = spawn(
      path.join(PG_BIN, "postgres"),
      [
        "-D",
        dataDir,
        "-p",
        String(port),
        "-k",
        dir,
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        "fsync=off",
        "-c",
        "synchronous_commit=off",
        "-c",
        "full_page_writes=off",
        "-c",
        `max_connections=${options.maxConnections ?? 100}`,
      ],
      { ...spawnOpts, stdio: ["ignore", log, log] },
    );
    postmaster.unref();
    fs.closeSync(log);
    const exited = new Promise<never>((_, reject) =>
      postmaster!.once("exit", (code) => reject(new Error(`postgres exited early (${code}):\n${readTail(logFile)}`))),
    );
    exited.catch(() => {});

    const base = `postgresql://${SUPERUSER}@127.0.0.1:${port}`;
    await Promise.race([waitUntilReady(`${base}/postgres`), exited]);

    const createDatabase = async (name: string) => {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name: ${name}`);
      const client = new pg.Client({ connectionString: `${base}/postgres` });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
      return `${base}/${name}`;
    };
    const url = await createDatabase("parakh");

    let stopped: Promise<void> | undefined;
    const stop = () =>
      (stopped ??= (async () => {
        const pm = postmaster!;
        if (pm.exitCode === null && pm.signalCode === null) {
          pm.ref(); // keep the loop alive until the exit event arrives
          const gone = new Promise<void>((resolve) => pm.once("exit", () => resolve()));
          try {
            execFileSync(path.join(PG_BIN, "pg_ctl"), ["stop", "-D", dataDir, "-m", "immediate", "-w"], {
              ...spawnOpts,
              stdio: "ignore",
            });
          } catch {
            pm.kill("SIGQUIT");
          }
          await gone;
        }
        cleanup();
      })());
    return { url, createDatabase, stop, base };
  } catch (err) {
    onExit();
    cleanup();
    throw err;
  }
}

async function waitUntilReady(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (err) {
      await client.end().catch(() => {});
      if (Date.now() > deadline) throw new Error(`PostgreSQL did not accept connections within ${timeoutMs} ms: ${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

function readTail(file: string): string {
  try {
    return fs.readFileSync(file, "utf8").split("\n").slice(-20).join("\n");
  } catch {
    return "(no log)";
  }
}
