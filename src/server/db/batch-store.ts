import { rowsOf, sql, sqlWithParts, type Statement } from "./atomic-write";
import { postgresWriter } from "./atomic-write-postgres";
import { DEFAULT_SQLITE_SYNCHRONOUS, postgresPool, type Db, type SqliteSynchronous } from "./client";
import { providerFromUrl } from "./provider";
import { dateFromSql, sqliteValue } from "./sql-encoding";
import { acquireHotConnection } from "./sqlite-hot";
import type { BatchVerificationColumns } from "./verification-columns";

export { verificationColumns, type BatchVerificationColumns, type BatchVerificationRow } from "./verification-columns";

/**
 * A chunk's verification-history rows: what every row of the chunk shares, said once, and each
 * item's own columns. Each row also gets the commit's batchId and its completedAt as createdAt.
 */
export interface BatchVerifications {
  merchantId: string;
  mode: string;
  kind: string;
  requestId: string;
  rows: BatchVerificationColumns;
}

export interface ChunkCommit {
  chunkId: string;
  leaseToken: string;
  batchId: string;
  results: string;
  /** The chunk's items that succeeded and failed, rejected items aside. */
  succeeded: number;
  failed: number;
  /** Of those, the ones the batch's counters already hold (counted when the chunk was put back for a retry). */
  countedBefore: { succeeded: number; failed: number };
  completedAt: Date;
  verifications: BatchVerifications;
}

/** With a claim: the batch, if still QUEUED, becomes PROCESSING, started at `startedAt`, in the same write. */
export interface BatchStart {
  startedAt: Date;
}

/** What a commit that also claims answers (see BatchStore.commitAndClaim). */
export interface CommitAndClaim {
  committed: boolean;
  next: ClaimedChunkRow | null;
  batchDone: boolean;
}

/** What a worker's turn needs of its batch. */
export interface BatchForTurn {
  status: string;
  kind: string;
  mode: string;
  merchantId: string;
  requestId: string;
  /** The batch's consent (C6), told to live vendors with each of its items. */
  consent: boolean | null;
  purpose: string | null;
  consentSource: string | null;
}

/** A chunk not done yet, as the worker's next look needs it. */
export interface OpenChunk {
  status: string;
  availableAt: Date;
  leaseUntil: Date | null;
}

/** A chunk as its claim took it. */
export interface ClaimedChunkRow {
  id: string;
  items: string;
  results: string | null;
  passes: number;
  retryingSince: Date | null;
  /** Items of the chunk the batch has counted already (outcomes shown while it waited for a retry). */
  succeeded: number;
  failed: number;
  /** The chunk's bulk request to the vendor, as JSON, once there is one (src/server/services/batches/bulk-pass.ts). */
  bulk: string | null;
}

/**
 * The hot write of a batch: a chunk's results, the batch's counters and the chunk's verification
 * rows, in one transaction that applies only while the worker still holds the chunk's lease.
 * Going through the Prisma client cost about 0.45 ms per verification row on SQLite (4.5 s of a
 * 10,000-item batch); prepared statements on the shared hot connection cost a few µs.
 */
export interface BatchStore {
  /**
   * Leases the batch's first claimable chunk (free and due, or held under a lease that ran out) to
   * `leaseToken` until `leaseUntil`, in one statement: of racing workers each takes a different
   * chunk or none, and the row comes back as it was claimed. Null when no chunk is claimable now.
   */
  claimChunk(batchId: string, leaseToken: string, leaseUntil: Date, start?: BatchStart): Promise<ClaimedChunkRow | null>;
  /** False when the lease was lost (another worker committed the chunk); nothing was written. */
  commitChunk(c: ChunkCommit): Promise<boolean>;
  /**
   * Commits `c` as commitChunk does and, in the same transaction (one fsync on SQLite, one commit
   * on PostgreSQL), claims the batch's next chunk as claimChunk does; the claim is made whether or
   * not the commit applied. `batchDone`: the commit applied, and it was the batch's last chunk not done.
   */
  commitAndClaim(c: ChunkCommit, next: { leaseToken: string; leaseUntil: Date }): Promise<CommitAndClaim>;
  /** The batch as a worker's turn needs it, or null when there is none. */
  batchForTurn(batchId: string): Promise<BatchForTurn | null>;
  /** The batch's chunks not done yet. */
  openChunks(batchId: string): Promise<OpenChunk[]>;
  close(): void;
}

const VERIFICATION_COLUMNS = `"id","merchantId","mode","kind","requestId","subject","nameQueried","outcome","nameMatch","sourceNameMatch","vendor","errorCode","batchId","createdAt"`;
const MARK_DONE = `UPDATE "BatchChunk" SET "status" = 'DONE', "leaseToken" = NULL, "leaseUntil" = NULL, "results" = ?, "succeeded" = ?, "failed" = ?, "completedAt" = ? WHERE "id" = ? AND "status" = 'RUNNING' AND "leaseToken" = ?`;

/**
 * The chunks' lease (src/server/jobs/lease.ts, LeasedRows over BatchChunk): which chunks a worker may
 * claim, as the SQL condition every claim below uses.
 */
export interface ChunkLeases {
  claimableSql(now: Date): Statement;
}

/**
 * SQLite's claim: the batch's first claimable chunk. The outer test keeps a claim from taking a row
 * another worker changed after this statement's subquery chose it.
 */
const claimSqlite = (leases: ChunkLeases, batchId: string, leaseToken: string, leaseUntil: Date, now: Date) =>
  sqlWithParts`UPDATE "BatchChunk" SET "status" = 'RUNNING', "leaseToken" = ${leaseToken}, "leaseUntil" = ${leaseUntil}
  WHERE "id" = (SELECT "id" FROM "BatchChunk" WHERE "batchId" = ${batchId} AND ${leases.claimableSql(now)} ORDER BY "seq" LIMIT 1)
    AND ${leases.claimableSql(now)}
  RETURNING "id", "results", "passes", "retryingSince", "succeeded", "failed", "bulk"`;
const ITEMS_SQLITE = `SELECT "items" FROM "BatchChunkItems" WHERE "chunkId" = ?`;
const ANY_OPEN_SQLITE = `SELECT 1 FROM "BatchChunk" WHERE "batchId" = ? AND "status" <> 'DONE' LIMIT 1`;
const START = `UPDATE "Batch" SET "status" = 'PROCESSING', "startedAt" = ? WHERE "id" = ? AND "status" = 'QUEUED'`;
const COUNT = `UPDATE "Batch" SET "processed" = "processed" + ?, "succeeded" = "succeeded" + ?, "failed" = "failed" + ? WHERE "id" = ?`;

/** What the commit adds to the batch's counters: the chunk's items not counted before. */
function newlyCounted(c: ChunkCommit) {
  return { succeeded: c.succeeded - c.countedBefore.succeeded, failed: c.failed - c.countedBefore.failed };
}

/** The two reads through Prisma: on SQLite they cost little beside the hot writes. */
function prismaReads(db: Db): Pick<BatchStore, "batchForTurn" | "openChunks"> {
  return {
    batchForTurn: (batchId) =>
      db.batch.findUnique({
        where: { id: batchId },
        select: { status: true, kind: true, mode: true, merchantId: true, requestId: true, consent: true, purpose: true, consentSource: true },
      }),
    openChunks: (batchId) =>
      db.batchChunk.findMany({ where: { batchId, status: { not: "DONE" } }, select: { status: true, availableAt: true, leaseUntil: true } }),
  };
}

function sqliteStore(db: Db, databaseUrl: string, leases: ChunkLeases, synchronous: SqliteSynchronous): BatchStore {
  const { conn, write, release } = acquireHotConnection(databaseUrl, synchronous);
  const markDone = conn.prepare(MARK_DONE);
  const count = conn.prepare(COUNT);
  const insertVerification = conn.prepare(`INSERT INTO "Verification" (${VERIFICATION_COLUMNS}) VALUES (${VERIFICATION_COLUMNS.replace(/"\w+"/g, "?")})`);
  const claimStatement = conn.prepare(claimSqlite(leases, "", "", new Date(0), new Date(0)).strings.join("?"));
  const itemsStatement = conn.prepare(ITEMS_SQLITE);
  const startStatement = conn.prepare(START);
  const anyOpenStatement = conn.prepare(ANY_OPEN_SQLITE);
  const claim = (batchId: string, leaseToken: string, leaseUntil: Date) => {
    const row = claimStatement.get(claimSqlite(leases, batchId, leaseToken, leaseUntil, new Date()).values.map(sqliteValue)) as
      Record<string, unknown> | undefined;
    if (!row) return null;
    const items = itemsStatement.get(row.id) as { items: string } | undefined;
    return claimedRow({ ...row, items: items?.items });
  };
  const commit = conn.transaction((c: ChunkCommit): boolean => {
    if (markDone.run(c.results, c.succeeded, c.failed, sqliteValue(c.completedAt), c.chunkId, c.leaseToken).changes !== 1) return false;
    const add = newlyCounted(c);
    count.run(add.succeeded + add.failed, add.succeeded, add.failed, c.batchId);
    const { merchantId, mode, kind, requestId, rows } = c.verifications;
    const createdAt = sqliteValue(c.completedAt);
    for (let k = 0; k < rows.id.length; k++) {
      insertVerification.run(
        rows.id[k],
        merchantId,
        mode,
        kind,
        requestId,
        rows.subject[k],
        rows.nameQueried[k],
        rows.outcome[k],
        rows.nameMatch[k],
        rows.sourceNameMatch[k],
        rows.vendor[k],
        rows.errorCode[k],
        c.batchId,
        createdAt,
      );
    }
    return true;
  });
  // Each in the group commit: a claim shares its fsync with the other worker's commit.
  return {
    claimChunk: (batchId, leaseToken, leaseUntil, start) =>
      write(() => {
        if (start) startStatement.run(sqliteValue(start.startedAt), batchId);
        return claim(batchId, leaseToken, leaseUntil);
      }),
    commitChunk: (c) => write(() => commit(c)),
    ...prismaReads(db),
    commitAndClaim: (c, next) =>
      write(() => {
        const committed = commit(c);
        const claimed = claim(c.batchId, next.leaseToken, next.leaseUntil);
        return { committed, next: claimed, batchDone: committed && !claimed && anyOpenStatement.get(c.batchId) === undefined };
      }),
    close: release,
  };
}

function claimedRow(row: Record<string, unknown>): ClaimedChunkRow {
  // Stored with the chunk in one transaction: a chunk without its items is damage, never an empty chunk.
  if (typeof row.items !== "string") throw new Error(`batch chunk ${String(row.id)} has no items row`);
  return {
    id: row.id as string,
    items: row.items,
    results: (row.results as string | null) ?? null,
    passes: Number(row.passes),
    retryingSince: dateFromSql(row.retryingSince),
    succeeded: Number(row.succeeded),
    failed: Number(row.failed),
    bulk: (row.bulk as string | null) ?? null,
  };
}

/**
 * PostgreSQL: pg directly on Prisma's pool (the atomic writer), not Prisma's raw queries, which cost
 * tens of ms of client time on a chunk's few hundred KB of parameters.
 */
function postgresStore(db: Db, leases: ChunkLeases): BatchStore {
  const writer = postgresWriter(postgresPool(db));
  // SKIP LOCKED: a worker passes over the chunk another is claiming this instant and takes the next.
  // With `start`, the batch, if still QUEUED, becomes PROCESSING in the same statement.
  const claim = (batchId: string, leaseToken: string, leaseUntil: Date, start?: BatchStart, now = new Date()) =>
    rowsOf<Record<string, unknown>>(sqlWithParts`WITH "started" AS (UPDATE "Batch" SET "status" = 'PROCESSING', "startedAt" = ${start?.startedAt ?? null}
        WHERE ${start !== undefined} AND "id" = ${batchId} AND "status" = 'QUEUED'),
      "claimed" AS (UPDATE "BatchChunk" SET "status" = 'RUNNING', "leaseToken" = ${leaseToken}, "leaseUntil" = ${leaseUntil}
      WHERE "id" = (SELECT "id" FROM "BatchChunk" WHERE "batchId" = ${batchId} AND ${leases.claimableSql(now)}
        ORDER BY "seq" LIMIT 1 FOR UPDATE SKIP LOCKED)
      AND ${leases.claimableSql(now)}
      RETURNING "id", "results", "passes", "retryingSince", "succeeded", "failed", "bulk")
      SELECT "claimed".*, "BatchChunkItems"."items" FROM "claimed" LEFT JOIN "BatchChunkItems" ON "BatchChunkItems"."chunkId" = "claimed"."id"`);
  /**
   * A chunk's commit and (with `next`) the claim of the batch's next chunk as one statement, atomic
   * without a transaction: one round trip instead of six (BEGIN, four statements, COMMIT), each of
   * which waited for both processes to be scheduled again on a busy machine. The rows and the counters
   * apply only if the chunk was marked done under this lease; the claim is made either way and never
   * takes the chunk being committed (one statement must not change a row twice). The counters wait
   * for the rows (`counted` reads `rows`): the batch's row stays locked from its update to the commit,
   * and other workers' commits of the same batch wait for it, so it is updated last, not before the
   * thousand rows.
   */
  const commitAndClaimStatement = (c: ChunkCommit, next: { leaseToken: string; leaseUntil: Date } | null, now = new Date()) => {
    const v = c.verifications;
    const add = newlyCounted(c);
    // Each of the rows' own columns as one array parameter, what they share as single values: a
    // chunk's thousands of bound values cost more in the client than the insert does in the server,
    // and PostgreSQL reads typed arrays for less than the same rows as JSON.
    const r = v.rows;
    return rowsOf<Record<string, unknown>>(sqlWithParts`WITH "done" AS (UPDATE "BatchChunk" SET "status" = 'DONE', "leaseToken" = NULL, "leaseUntil" = NULL,
        "results" = ${c.results}, "succeeded" = ${c.succeeded}, "failed" = ${c.failed}, "completedAt" = ${c.completedAt}
        WHERE "id" = ${c.chunkId} AND "status" = 'RUNNING' AND "leaseToken" = ${c.leaseToken} RETURNING "id"),
      "rows" AS (INSERT INTO "Verification" ("id","merchantId","mode","kind","requestId","subject","nameQueried","outcome","nameMatch","sourceNameMatch","vendor","errorCode","batchId","createdAt")
        SELECT r."id", ${v.merchantId}, ${v.mode}, ${v.kind}, ${v.requestId}, r."subject", r."nameQueried", r."outcome", r."nameMatch", r."sourceNameMatch", r."vendor", r."errorCode", ${c.batchId}, ${c.completedAt}
        FROM unnest(${r.id}::text[], ${r.subject}::text[], ${r.nameQueried}::text[], ${r.outcome}::text[],
          ${r.nameMatch}::float8[], ${r.sourceNameMatch}::float8[], ${r.vendor}::text[], ${r.errorCode}::text[])
          AS r("id", "subject", "nameQueried", "outcome", "nameMatch", "sourceNameMatch", "vendor", "errorCode")
        WHERE EXISTS (SELECT 1 FROM "done") RETURNING 1),
      "counted" AS (UPDATE "Batch" SET "processed" = "processed" + ${add.succeeded + add.failed}, "succeeded" = "succeeded" + ${add.succeeded},
        "failed" = "failed" + ${add.failed} WHERE "id" = ${c.batchId} AND EXISTS (SELECT 1 FROM "done") AND (SELECT count(*) FROM "rows") >= 0),
      "claimed" AS (UPDATE "BatchChunk" SET "status" = 'RUNNING', "leaseToken" = ${next?.leaseToken ?? null}, "leaseUntil" = ${next?.leaseUntil ?? null}
        WHERE ${next !== null} AND "id" = (SELECT "id" FROM "BatchChunk" WHERE "batchId" = ${c.batchId} AND "id" <> ${c.chunkId}
          AND ${leases.claimableSql(now)} ORDER BY "seq" LIMIT 1 FOR UPDATE SKIP LOCKED)
        AND ${leases.claimableSql(now)}
        RETURNING "id", "results", "passes", "retryingSince", "succeeded", "failed", "bulk")
      SELECT (SELECT count(*) FROM "done")::int AS "committed",
        NOT EXISTS (SELECT 1 FROM "BatchChunk" WHERE "batchId" = ${c.batchId} AND "id" <> ${c.chunkId} AND "status" <> 'DONE') AS "othersDone",
        "next".* FROM (SELECT 1) AS "one"
        LEFT JOIN (SELECT "claimed".*, "BatchChunkItems"."items" FROM "claimed" LEFT JOIN "BatchChunkItems" ON "BatchChunkItems"."chunkId" = "claimed"."id") AS "next" ON true`);
  };
  const commitAndClaim = async (c: ChunkCommit, next: { leaseToken: string; leaseUntil: Date } | null) => {
    const [row] = await writer.run(commitAndClaimStatement(c, next));
    const committed = row!.committed === 1;
    const claimed = row!.id == null ? null : claimedRow(row!);
    // The statement's snapshot shows the other chunks as they were before it: one committed meanwhile still counts as open.
    return { committed, next: claimed, batchDone: committed && !claimed && row!.othersDone === true };
  };
  const first = (rows: Record<string, unknown>[]) => (rows[0] ? claimedRow(rows[0]) : null);
  return {
    claimChunk: async (batchId, leaseToken, leaseUntil, start) => first(await writer.run(claim(batchId, leaseToken, leaseUntil, start))),
    commitChunk: async (c) => (await commitAndClaim(c, null)).committed,
    commitAndClaim,
    // On pg directly, as the writes: a worker's turn starts and ends with these, each through Prisma about a millisecond of the event loop.
    batchForTurn: async (batchId) => {
      const [row] = await writer.run(
        rowsOf<BatchForTurn>(
          sql`SELECT "status", "kind", "mode", "merchantId", "requestId", "consent", "purpose", "consentSource" FROM "Batch" WHERE "id" = ${batchId}`,
        ),
      );
      return row ?? null;
    },
    openChunks: async (batchId) =>
      (
        await writer.run(
          rowsOf<Record<string, unknown>>(
            sql`SELECT "status", "availableAt", "leaseUntil" FROM "BatchChunk" WHERE "batchId" = ${batchId} AND "status" <> 'DONE'`,
          ),
        )
      ).map((r) => ({ status: r.status as string, availableAt: dateFromSql(r.availableAt)!, leaseUntil: dateFromSql(r.leaseUntil) })),
    close() {},
  };
}

/** The batch store of a client; `leases` is the chunks' lease (chunkLeases, src/server/services/batches/batch-worker.ts). */
export function createBatchStore(
  db: Db,
  databaseUrl: string,
  leases: ChunkLeases,
  sqliteSynchronous: SqliteSynchronous = DEFAULT_SQLITE_SYNCHRONOUS,
): BatchStore {
  return providerFromUrl(databaseUrl) === "sqlite" ? sqliteStore(db, databaseUrl, leases, sqliteSynchronous) : postgresStore(db, leases);
}
