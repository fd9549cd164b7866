import fs from "node:fs";
import path from "node:path";
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { DriverAdapterError, type SqlDriverAdapter, type SqlQuery, type Transaction } from "@prisma/driver-adapter-utils";
import { Prisma, PrismaClient } from "../../generated/prisma/client";
import { PrismaClient as PostgresPrismaClient } from "../../generated/prisma-postgres/client";
import { providerFromUrl, sqliteFilePath, type DbProvider } from "./provider";
import { sqliteWriteTurns, type SqliteSynchronous, type WriteTurns } from "./sqlite-hot";

export { Prisma };
export type Db = PrismaClient;
/** A transaction client, as passed to `db.$transaction(async (tx) => ...)`. */
export type DbTx = Prisma.TransactionClient;

export type { SqliteSynchronous };
export const DEFAULT_SQLITE_SYNCHRONOUS: SqliteSynchronous = "FULL";

export interface CreatePrismaClientOptions {
  sqliteSynchronous?: SqliteSynchronous;
  /** PostgreSQL pool size; defaults to `connection_limit` in the URL, else 10. */
  poolSize?: number;
  /** SQLite busy timeout in ms (default 5000). */
  busyTimeoutMs?: number;
  log?: Prisma.LogLevel[];
}

/**
 * What a client was made with, by client. One map per process whichever copy of this module asks:
 * the production page bundle carries a copy of its own and is handed clients the server made.
 */
function sharedWeakMap<V>(name: string): WeakMap<object, V> {
  const key = Symbol.for(`parakh.db.${name}`);
  const global = globalThis as unknown as Record<symbol, WeakMap<object, V> | undefined>;
  return (global[key] ??= new WeakMap<object, V>());
}

const providers = sharedWeakMap<DbProvider>("providers");

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
    immediateTransactions(conn, sqliteWriteTurns(this.#file));
    await conn.executeScript(this.#pragmas);
    restrictSqliteFiles(this.#file);
    return conn;
  }
}

/**
 * A transaction holds SQLite's write lock from BEGIN IMMEDIATE to its end, across awaits: it takes
 * the process's write turn first, so it waits in line with the group commits instead of racing them.
 */
const TRANSACTION_TURN_WAIT_MS = 10_000;

/**
 * The adapter begins transactions DEFERRED: a transaction that reads, awaits, then writes fails at
 * once with SQLITE_BUSY ("Operation has timed out") when another connection committed in between,
 * such as the request log's group commit. IMMEDIATE takes the write lock at BEGIN (waiting up to
 * the busy timeout), so such a transaction is never overtaken. The transaction is the adapter's own,
 * made of its public queries: one at a time on the connection (as its lock does), COMMIT and ROLLBACK
 * sent by Prisma's engine as queries (`usePhantomQuery: false`, as the adapter says).
 */
function immediateTransactions(conn: SqlDriverAdapter, turns: WriteTurns) {
  let last = Promise.resolve();
  const query = (sql: string): SqlQuery => ({ sql, args: [], argTypes: [] });
  conn.startTransaction = async (isolationLevel) => {
    if (isolationLevel && isolationLevel !== "SERIALIZABLE") throw new DriverAdapterError({ kind: "InvalidIsolationLevel", level: isolationLevel });
    // A turn held past the limit is a bug elsewhere (a transaction waiting on another): go on and let SQLite decide.
    const releaseTurn = (await turns.take(TRANSACTION_TURN_WAIT_MS)) ?? (() => {});
    let unlock = () => {};
    const before = last;
    last = new Promise<void>((resolve) => (unlock = resolve));
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      unlock();
      releaseTurn();
    };
    try {
      await before;
      await conn.executeRaw(query("BEGIN IMMEDIATE"));
    } catch (err) {
      await release();
      throw err;
    }
    const savepoint = async (sql: string) => void (await conn.executeRaw(query(sql)));
    const tx: Transaction = {
      provider: conn.provider,
      adapterName: conn.adapterName,
      options: { usePhantomQuery: false },
      queryRaw: (q) => conn.queryRaw(q),
      executeRaw: (q) => conn.executeRaw(q),
      commit: release,
      rollback: release,
      createSavepoint: (name) => savepoint(`SAVEPOINT ${name}`),
      rollbackToSavepoint: (name) => savepoint(`ROLLBACK TO ${name}`),
      releaseSavepoint: (name) => savepoint(`RELEASE SAVEPOINT ${name}`),
    };
    return tx;
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

const pools = sharedWeakMap<pg.Pool>("pools");

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
  recordTransactionProviders(db, provider);
  return db;
}

/**
 * An interactive transaction's client is an object of its own: it is recorded as the transaction
 * starts, so dbProvider answers for it too.
 */
function recordTransactionProviders(db: Db, provider: DbProvider) {
  const transaction = db.$transaction.bind(db) as (arg: unknown, options?: unknown) => Promise<unknown>;
  const recorded = (arg: unknown, options?: unknown) =>
    typeof arg === "function"
      ? transaction((tx: DbTx) => {
          providers.set(tx, provider);
          return (arg as (tx: DbTx) => unknown)(tx);
        }, options)
      : transaction(arg, options);
  db.$transaction = recorded as Db["$transaction"];
}

/** The provider a client from `createPrismaClient` talks to. */
export function dbProvider(db: Db | DbTx): DbProvider {
  const p = providers.get(db);
  if (p) return p;
  throw new Error("dbProvider: not a client from createPrismaClient");
}

const sqliteTurns = sharedWeakMap<WriteTurns>("sqliteTurns");

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
