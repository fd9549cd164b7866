import fs from "node:fs";
import Database from "better-sqlite3";
import { log } from "@/server/lib/logger";
import { sqliteFilePath } from "./provider";

/**
 * SQLite durability. FULL syncs the WAL on every commit, so a committed audit record or payment
 * survives a power loss as well as a process crash; NORMAL survives only the crash.
 */
export type SqliteSynchronous = "NORMAL" | "FULL";

/**
 * The one direct better-sqlite3 connection of a process for a database file, shared by the hot write
 * paths (audit group commits, wallet holds and captures). Its statements run synchronously, so on one
 * connection they never contend for SQLite's write lock with each other, and they share group
 * commits: one fsync for everything written in the same moment. Only Prisma's own connection can
 * hold the lock, and then the commit is retried asynchronously.
 */
interface Shared {
  conn: Database.Database;
  users: number;
  writer: GroupWriter;
  walSync: WalSync | null;
}

/**
 * Turns at SQLite's write lock within this process. A Prisma transaction holds the lock across
 * awaits; without turns, the group writer could only poll for it, and a steady run of Prisma
 * transactions (refund jobs, say) starved every audit commit for seconds. In turn, first come first
 * served, each waits at most for the writers queued before it.
 */
export class WriteTurns {
  private held = false;
  private readonly waiting: { grant: () => void }[] = [];

  /** Writers waiting for their turn now. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Resolves to the release function once it is this caller's turn; null if `timeoutMs` passes first. */
  take(timeoutMs = Infinity): Promise<(() => void) | null> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve) => {
      const waiter = { grant: () => resolve(this.releaser()) };
      this.waiting.push(waiter);
      if (Number.isFinite(timeoutMs)) {
        setTimeout(() => {
          const i = this.waiting.indexOf(waiter);
          if (i < 0) return;
          this.waiting.splice(i, 1);
          resolve(null);
        }, timeoutMs).unref();
      }
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next.grant();
      else this.held = false;
    };
  }
}

const turnsByFile = new Map<string, WriteTurns>();

/** The write turns of this process for a database file (its Prisma transactions and its group commits). */
export function sqliteWriteTurns(file: string): WriteTurns {
  let turns = turnsByFile.get(file);
  if (!turns) turnsByFile.set(file, (turns = new WriteTurns()));
  return turns;
}

interface Pending {
  op: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

type SyncDone = (err: Error | null) => void;

/**
 * Full sync without the fsync on the event loop. The hot connection commits without syncing
 * (synchronous=NORMAL: SQLite writes the WAL but does not wait for the disk; it still syncs around
 * checkpoints), then the WAL file is fsynced on libuv's thread pool, and a commit's writes settle
 * only once a sync that began after that commit has finished: nothing is answered before it is on
 * disk, while the event loop goes on serving requests.
 */
export class WalSync {
  private fd: number | null = null;
  private running = false;
  private closing = false;
  private waiting: SyncDone[] = [];

  constructor(
    private readonly walPath: string,
    private readonly fsync: (fd: number, done: SyncDone) => void = (fd, done) => fs.fsync(fd, done),
  ) {}

  /** Calls `done` once a sync begun after this call has finished, with its error if it failed. */
  after(done: SyncDone): void {
    this.waiting.push(done);
    if (!this.running) this.start();
  }

  close(): void {
    this.closing = true;
    if (!this.running) this.closeFd();
  }

  private start() {
    const synced = this.waiting;
    this.waiting = [];
    this.running = true;
    const finish: SyncDone = (err) => {
      this.running = false;
      for (const done of synced) done(err);
      if (this.waiting.length) this.start();
      else if (this.closing) this.closeFd();
    };
    try {
      // fsync flushes the file, whichever descriptor names it: SQLite writes the WAL through its own.
      this.fd ??= fs.openSync(this.walPath, "r");
    } catch (err) {
      return finish(err as Error);
    }
    this.fsync(this.fd, finish);
  }

  private closeFd() {
    if (this.fd === null) return;
    fs.closeSync(this.fd);
    this.fd = null;
  }
}

/** Most writes in one commit; the rest go in the next. */
const MAX_GROUP = 2000;

/**
 * Group commit: every write queued while the previous commit ran goes into the next transaction,
 * each in its own savepoint (one write failing rolls back only itself), with one fsync for all.
 * A write's promise settles only after its commit, so an answer is never sent before its data is durable.
 */
class GroupWriter {
  private queue: Pending[] = [];
  private scheduled = false;
  private readonly runAll: Database.Transaction<(batch: Pending[]) => { ok: boolean; value: unknown }[]>;

  constructor(
    conn: Database.Database,
    private readonly turns: WriteTurns,
    /** With full sync: commits do not sync themselves, and their writes settle after this syncs the WAL. */
    private readonly walSync: WalSync | null,
  ) {
    const one = conn.transaction((op: () => unknown) => op());
    this.runAll = conn.transaction((batch: Pending[]) =>
      batch.map((p) => {
        try {
          return { ok: true, value: one(p.op) };
        } catch (err) {
          // Some failures (disk full, I/O) end the whole transaction, not just the savepoint: abort the batch.
          if (isBusy(err) || !conn.inTransaction) throw err;
          return { ok: false, value: err };
        }
      }),
    );
  }

  write<T>(op: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ op, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush(1, Date.now() + 10_000));
      }
    });
  }

  private async flush(delay: number, deadline: number): Promise<void> {
    // After the Prisma transactions already waiting; past the deadline, try regardless (and fail busy).
    const release = await this.turns.take(Math.max(0, deadline - Date.now()));
    const batch = this.queue.slice(0, MAX_GROUP);
    let results: { ok: boolean; value: unknown }[];
    try {
      results = this.runAll.immediate(batch);
    } catch (err) {
      release?.();
      if (isBusy(err) && Date.now() < deadline) {
        // Another connection (Prisma's) holds the lock: wait without blocking the event loop.
        setTimeout(() => void this.flush(Math.min(delay * 2, 50), deadline), delay);
        return;
      }
      this.queue.splice(0, batch.length);
      for (const p of batch) p.reject(err);
      this.next();
      return;
    }
    release?.();
    this.queue.splice(0, batch.length);
    const settle = () => results.forEach((r, i) => (r.ok ? batch[i]!.resolve(r.value) : batch[i]!.reject(r.value)));
    if (!this.walSync) {
      settle();
      return this.next();
    }
    // The next group commits once this sync is done: what arrives meanwhile shares one commit and one sync.
    this.walSync.after((err) => {
      if (!err) settle();
      else {
        // Committed but not known to be on disk: none of this commit's writes is reported as done.
        log.error("SQLite WAL sync failed", { err, writes: batch.length });
        for (const p of batch) p.reject(err);
      }
      this.next();
    });
  }

  private next() {
    if (this.queue.length) setImmediate(() => void this.flush(1, Date.now() + 10_000));
    else this.scheduled = false;
  }
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === "SQLITE_BUSY" || code === "SQLITE_LOCKED";
}

const open = new Map<string, Shared>();

export interface HotConnection {
  conn: Database.Database;
  /** Runs `op` (synchronous SQL on conn) in the next group commit; settles after that commit. */
  write: <T>(op: () => T) => Promise<T>;
  release: () => void;
}

export function acquireHotConnection(databaseUrl: string, synchronous: SqliteSynchronous): HotConnection {
  const file = sqliteFilePath(databaseUrl);
  let shared = open.get(file);
  if (!shared) {
    const conn = new Database(file);
    conn.pragma("journal_mode = WAL");
    // Full sync is kept by WalSync, after the commit and off the event loop.
    conn.pragma("synchronous = NORMAL");
    // Never block the event loop waiting for a lock: the group writer retries asynchronously.
    conn.pragma("busy_timeout = 0");
    const walSync = synchronous === "FULL" && file !== ":memory:" ? new WalSync(`${file}-wal`) : null;
    shared = { conn, users: 0, writer: new GroupWriter(conn, sqliteWriteTurns(file), walSync), walSync };
    open.set(file, shared);
  }
  shared.users++;
  let released = false;
  const writer = shared.writer;
  return {
    conn: shared.conn,
    write: (op) => writer.write(op),
    release: () => {
      if (released) return;
      released = true;
      if (--shared.users === 0) {
        open.delete(file);
        shared.conn.close();
        shared.walSync?.close();
      }
    },
  };
}
