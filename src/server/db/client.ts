import fs from "node:fs";
import path from "node:path";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import type { SqlDriverAdapter } from "@prisma/driver-adapter-utils";
import { Prisma, PrismaClient } from "../../generated/prisma/client";
import { PrismaClient as PostgresPrismaClient } from "../../generated/prisma-postgres/client";
import { providerFromUrl, sqliteFilePath, type DbProvider } from "./provider";
import { sqliteWriteTurns, type WriteTurns } from "./sqlite-hot";

export { Prisma };
export type Db = PrismaClient;
/** A transaction client, as passed to `db.$transaction(async (tx) => ...)`. */
export type DbTx = Prisma.TransactionClient;

/**
 * SQLite durability. FULL syncs the WAL on every commit, so a committed audit record or payment
 * survives a power loss as well as a process crash; NORMAL survives only the crash.
 */
export type SqliteSynchronous = "NORMAL" | "FULL";
export const DEFAULT_SQLITE_SYNCHRONOUS: SqliteSynchronous = "FULL";

export interface CreatePrismaClientOptions {
  sqliteSynchronous?: SqliteSynchronous;
  /** PostgreSQL pool size; defaults to `connection_limit` in the URL, else 10. */
  poolSize?: number;
  /** SQLite busy timeout in ms (default 5000). */
  busyTimeoutMs?: number;
  log?: Prisma.LogLevel[];
}

const providers = new WeakMap<object, DbProvider>();

// Set on every connection the adapter opens (the client and the migration engine).
function sqlitePragmas(busyTimeoutMs: number, synchronous: SqliteSynchronous): string {
  return [
    "PRAGMA journal_mode = WAL",
    `PRAGMA synchronous = ${synchronous === "FULL" ? "FULL" : "NORMAL"}`,
    `PRAGMA busy_timeout = ${Math.trunc(busyTimeoutMs)}`,
    "PRAGMA foreign_keys = ON",
  ].join(";\n");
}

/** The database file and its WAL companions are readable by the server's user only. */
export function restrictSqliteFiles(file: string) {
  if (file === ":memory:") return;
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      // Run-time paths: the build must not trace the project through them.
      if ((fs.statSync(/* turbopackIgnore: true */ f).mode & 0o777) !== 0o600) fs.chmodSync(/* turbopackIgnore: true */ f, 0o600);
    } catch {
      // not created (yet), or owned by someone else
    }
  }
}

export class ParakhSqliteAdapter extends PrismaBetterSqlite3 {
  readonly #pragmas: string;
  readonly #file: string;
  constructor(file: string, busyTimeoutMs = 5000, synchronous: SqliteSynchronous = DEFAULT_SQLITE_SYNCHRONOUS) {
    super({ url: file, timeout: busyTimeoutMs });
    this.#file = file;
    this.#pragmas = sqlitePragmas(busyTimeoutMs, synchronous);
  }
  override async connect(): Promise<SqlDriverAdapter> {
    const conn = await super.connect();
    beginImmediate(conn);
    takeTurnsForTransactions(conn, sqliteWriteTurns(this.#file));
    await conn.executeScript(this.#pragmas);
    restrictSqliteFiles(this.#file);
    return conn;
  }
}

/**
 * The adapter begins transactions DEFERRED: a transaction that reads, awaits, then writes fails at
 * once with SQLITE_BUSY ("Operation has timed out") when another connection committed in between,
 * such as the request log's group commit. IMMEDIATE takes the write lock at BEGIN (waiting up to
 * the busy timeout), so such a transaction is never overtaken.
 */
function beginImmediate(conn: SqlDriverAdapter) {
  const client = (conn as unknown as { client?: { prepare: (sql: string) => unknown } }).client;
  if (!client || typeof client.prepare !== "function") throw new Error("The SQLite adapter no longer exposes its connection; revisit beginImmediate.");
  const prepare = client.prepare.bind(client);
  client.prepare = (sql: string) => prepare(sql === "BEGIN" ? "BEGIN IMMEDIATE" : sql);
}

/**
 * A transaction holds SQLite's write lock from BEGIN IMMEDIATE to its end, across awaits: it takes
 * the process's write turn first, so it waits in line with the group commits instead of racing them.
 */
const TRANSACTION_TURN_WAIT_MS = 10_000;

function takeTurnsForTransactions(conn: SqlDriverAdapter, turns: WriteTurns) {
  const start = conn.startTransaction.bind(conn);
  conn.startTransaction = async (isolationLevel) => {
    // A turn held past the limit is a bug elsewhere (a transaction waiting on another): go on and let SQLite decide.
    const release = (await turns.take(TRANSACTION_TURN_WAIT_MS)) ?? (() => {});
    try {
      const tx = await start(isolationLevel);
      const commit = tx.commit.bind(tx);
      const rollback = tx.rollback.bind(tx);
      tx.commit = () => commit().finally(release);
      tx.rollback = () => rollback().finally(release);
      return tx;
    } catch (err) {
      release();
      throw err;
    }
  };
}

/** SQLite adapter factory for a `file:` URL or path; creates the file's parent folder. */
export function sqliteAdapter(databaseUrl: string, busyTimeoutMs = 5000, synchronous: SqliteSynchronous = DEFAULT_SQLITE_SYNCHRONOUS): ParakhSqliteAdapter {
  const file = sqliteFilePath(databaseUrl);
  if (file !== ":memory:") fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  return new ParakhSqliteAdapter(file, busyTimeoutMs, synchronous);
}

/**
 * The PostgreSQL connection pool. `connection_limit` (Prisma's URL convention) sets its size and
 * is removed from the URL handed to `pg`.
 */
function postgresPoolFor(databaseUrl: string, poolSize?: number): pg.Pool {
  let connectionString = databaseUrl;
  let limit = NaN;
  const m = /[?&]connection_limit=(\d+)/.exec(databaseUrl);
  if (m) {
    limit = Number(m[1]);
    // Plain string surgery: URLs with a socket path and no host do not parse with `new URL`.
    connectionString = databaseUrl.replace(/([?&])connection_limit=\d+&?/, "$1").replace(/[?&]$/, "");
  }
  const max = poolSize ?? (limit > 0 ? limit : 10);
  return new pg.Pool({ connectionString, max, idleTimeoutMillis: 30_000 });
}

const pools = new WeakMap<object, pg.Pool>();

/** The connection pool under a PostgreSQL client from `createPrismaClient`, for writes that bypass Prisma's per-query cost. */
export function postgresPool(db: Db): pg.Pool {
  const pool = pools.get(db);
  if (!pool) throw new Error("postgresPool: not a PostgreSQL client from createPrismaClient");
  return pool;
}

/**
 * A Prisma client for the URL's provider. Both generated clients share one API; callers see
 * the SQLite-generated type.
 */
export function createPrismaClient(databaseUrl: string, options: CreatePrismaClientOptions = {}): Db {
  const provider = providerFromUrl(databaseUrl);
  const log = options.log ?? [];
  let db: Db;
  if (provider === "postgresql") {
    const pool = postgresPoolFor(databaseUrl, options.poolSize);
    db = new PostgresPrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }), log }) as unknown as Db;
    pools.set(db, pool);
  } else {
    db = new PrismaClient({ adapter: sqliteAdapter(databaseUrl, options.busyTimeoutMs, options.sqliteSynchronous), log });
    sqliteTurns.set(db, sqliteWriteTurns(sqliteFilePath(databaseUrl)));
  }
  providers.set(db, provider);
  return db;
}

/** The provider a client from `createPrismaClient` talks to. */
export function dbProvider(db: Db | DbTx): DbProvider {
  const p = providers.get(db);
  if (p) return p;
  // Transaction clients are separate objects; the generated runtime records the provider.
  const internal = (db as unknown as { _engineConfig?: { activeProvider?: string } })._engineConfig;
  if (internal?.activeProvider === "postgresql" || internal?.activeProvider === "sqlite") return internal.activeProvider;
  throw new Error("dbProvider: not a client from createPrismaClient");
}

const sqliteTurns = new WeakMap<object, WriteTurns>();

/**
 * Whether another writer of this process waits for SQLite's one write lock while the caller holds
 * it: a long write can commit what it has and go on in a new transaction, after the waiter. Never
 * on PostgreSQL, where writers of different rows do not wait for each other.
 */
export function othersWaitToWrite(db: Db): boolean {
  return (sqliteTurns.get(db)?.queued ?? 0) > 0;
}

/** Closes the client's connections (graceful shutdown). */
export async function closeDatabase(db: Db): Promise<void> {
  await db.$disconnect();
}
