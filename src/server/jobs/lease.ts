/**
 * Leases on table rows, the one mechanism behind the job queue and batch chunks. A worker claims a
 * row with one conditional update (the row is free and due, or held under a lease that ran out),
 * renews the lease while it works, and writes its outcome (done, or back to wait with a backoff)
 * only while it still holds the row. So of racing workers exactly one wins a claim, a worker that
 * died loses its rows when their leases run out, and a worker that stalled past its lease writes
 * nothing. Work may run again after such a takeover (at-least-once): it must be idempotent.
 *
 * Leases use each instance's clock: keep clocks in sync (NTP) to well under the lease length.
 */
import type { Statement } from "@/server/db/atomic-write";
import { quoteIdent } from "@/server/db/sql-encoding";
import { randomToken } from "@/server/lib/ids";

/** How a table names its lease: the status values and the columns the conditional updates use. */
export interface LeaseColumns {
  /** Status of a row waiting for a worker ("QUEUED", "PENDING"). */
  free: string;
  /** Status of a claimed row ("RUNNING"). */
  held: string;
  /** The column naming the claim that holds the row. */
  token: string;
  /** The column holding the lease's end. */
  until: string;
  /** The column saying when a free row is due. */
  due: string;
}

/** The one kind of Prisma call leases need: a conditional update that says how many rows it changed. */
export interface ConditionalUpdates {
  updateMany(args: { where: any; data: any }): Promise<{ count: number }>;
}

/** A claim this worker holds. */
export interface Lease {
  id: string;
  /** Written to the token column: unique per claim, so only this claim's writes apply. */
  token: string;
  /** When the lease ends unless renewed (ms since the epoch). */
  until: number;
}

/** Rows of one table taken by leases. `rows` is read at each call (a test may swap the client's table). */
export class LeasedRows {
  /** The text of claimableSql, made once: prepared statements are found by it. */
  private readonly claimableText: TemplateStringsArray;

  constructor(
    private readonly rows: () => ConditionalUpdates,
    private readonly columns: LeaseColumns,
  ) {
    const [status, due, until] = ["status", columns.due, columns.until].map(quoteIdent);
    const parts = [`((${status} = `, ` AND ${due} <= `, `) OR (${status} = `, ` AND ${until} < `, "))"];
    this.claimableText = Object.freeze(Object.assign([...parts], { raw: parts })) as TemplateStringsArray;
  }

  /** Free rows due at `now`. */
  dueWhere(now: Date) {
    return { status: this.columns.free, [this.columns.due]: { lte: now } };
  }

  /** Rows held under a lease that ended before `now`: their worker died or stalled. */
  expiredWhere(now: Date) {
    return { status: this.columns.held, [this.columns.until]: { lt: now } };
  }

  /** Rows a worker may claim at `now`. */
  claimableWhere(now: Date) {
    return { OR: [this.dueWhere(now), this.expiredWhere(now)] };
  }

  /**
   * claimableWhere as a SQL condition on the table's columns, for a store that claims in a statement
   * of its own (batch chunks: the first claimable chunk of a batch, in one statement). Written into
   * the statement with `sqlWithParts`.
   */
  claimableSql(now: Date): Statement {
    return { strings: this.claimableText, values: [this.columns.free, now, this.columns.held, now] };
  }

  /**
   * Claims row `id` for `leaseMs` if it is still claimable and still matches `asRead` (columns of
   * the version the caller read, so of two workers that read it only one wins). `data` is written
   * with the claim. Returns the lease, or null when another worker got there first.
   */
  async claim(id: string, asRead: object, leaseMs: number, options: { owner?: string; data?: object } = {}): Promise<Lease | null> {
    const token = options.owner ? `${options.owner}/${randomToken(8)}` : randomToken(12);
    const now = new Date();
    const until = now.getTime() + leaseMs;
    const { count } = await this.rows().updateMany({
      where: { id, ...asRead, ...this.claimableWhere(now) },
      data: { status: this.columns.held, [this.columns.token]: token, [this.columns.until]: new Date(until), ...options.data },
    });
    return count === 1 ? { id, token, until } : null;
  }

  /** Extends the lease by `leaseMs` from now; false when the claim no longer holds the row. */
  async renew(lease: Lease, leaseMs: number): Promise<boolean> {
    const until = Date.now() + leaseMs;
    const { count } = await this.rows().updateMany({ where: this.heldBy(lease), data: { [this.columns.until]: new Date(until) } });
    if (count === 1) lease.until = until;
    return count === 1;
  }

  /** Writes `data` (its new status among it) and frees the row, if the claim still holds it. */
  async release(lease: Lease, data: object): Promise<boolean> {
    const { count } = await this.rows().updateMany({
      where: this.heldBy(lease),
      data: { ...data, [this.columns.token]: null, [this.columns.until]: null },
    });
    return count === 1;
  }

  /** Puts the row back to wait until `at` (a retry after a backoff), with `data`, if the claim still holds it. */
  retryAt(lease: Lease, at: Date, data: object = {}): Promise<boolean> {
    return this.release(lease, { ...data, status: this.columns.free, [this.columns.due]: at });
  }

  private heldBy(lease: Lease) {
    return { id: lease.id, status: this.columns.held, [this.columns.token]: lease.token };
  }
}

export interface KeepLeaseOptions {
  leaseMs: number;
  /** Renewals come every third of the lease, never closer together than this (default 10 ms). */
  minIntervalMs?: number;
  /** Called once when a renewal finds the row taken ("lost"), or renewals failed until the lease ran out ("expired"). */
  onLost?: (why: "lost" | "expired") => void;
  /** A renewal failed (the database did not answer); the next one tries again. */
  onError?: (err: unknown) => void;
}

/** Renews `lease` while work runs, until `stop()`. */
export function keepLease(rows: LeasedRows, lease: Lease, options: KeepLeaseOptions): { stop(): void } {
  let stopped = false;
  let inFlight = false;
  const lost = (why: "lost" | "expired") => {
    stopped = true;
    clearInterval(timer);
    options.onLost?.(why);
  };
  const beat = async () => {
    if (inFlight || stopped) return;
    inFlight = true;
    try {
      const held = await rows.renew(lease, options.leaseMs);
      if (!held && !stopped) lost("lost");
    } catch (err) {
      if (stopped) return;
      options.onError?.(err);
      if (Date.now() >= lease.until) lost("expired");
    } finally {
      inFlight = false;
    }
  };
  const timer = setInterval(() => void beat(), Math.max(options.minIntervalMs ?? 10, Math.floor(options.leaseMs / 3)));
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
