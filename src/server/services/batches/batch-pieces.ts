/**
 * A new batch stored in pieces. On SQLite one writer at a time holds the database, and a batch's
 * 8 MiB of chunks in one transaction kept every other write (a single call's audit record) waiting
 * for all of it. So the batch row goes first as CREATING, which no reader shows; its chunks follow
 * a few per statement, and whenever another writer of the process waits, the piece so far commits
 * and the next one starts after that writer. The last piece adds the worker jobs and makes the batch
 * QUEUED: it appears whole, or (should a piece fail) its row and chunks are deleted and it never
 * appears. With nobody waiting the batch is one transaction, as before.
 *
 * On PostgreSQL the batch row (QUEUED), its chunks, their items and the jobs go in one statement on
 * pg directly that also makes the admission checks, after the lock on the merchant's row in sandbox
 * (see admitAndQueueNewBatch): through Prisma, a 10,000-item batch's megabyte of items and the
 * transaction around them cost about 30 ms before its first chunk could run.
 */
import { admitAndQueueNewBatch, type BatchAdmissionSeen, type NewBatchRow, type NewChunkRow, type NewJobRow } from "@/server/db/batch-store";
import type { AppError } from "@/server/errors";
import { dbProvider, othersWaitToWrite, type Db, type DbTx } from "@/server/db/client";

/** A batch still being stored: hidden from every reader until its last piece commits. */
export const CREATING_STATUS = "CREATING";
/** What a reader of batches asks for: every batch but one still being stored. */
export const STORED_BATCHES = { status: { not: CREATING_STATUS } };

/**
 * A batch still CREATING this long after it began was left by a creation that died with its process
 * (a live one takes seconds): the retention purge deletes it.
 */
const ABANDONED_AFTER_MS = 60 * 60 * 1000;

/** The batches left behind by creations that never finished. */
export function abandonedCreations(now: Date) {
  return { status: CREATING_STATUS, createdAt: { lt: new Date(now.getTime() - ABANDONED_AFTER_MS) } };
}

/** Items per insert statement, in whole chunks: about 0.5 MiB of items JSON, a few ms of the event loop on SQLite. */
const ITEMS_PER_INSERT = 500;

/** A chunk's row and (in `items`) the row of its items. */
export type ChunkRows = NewChunkRow;

/**
 * What a new batch must pass to be stored, checked in the write that adds its row; in sandbox after a
 * lock on the merchant's row, so racing submissions are counted one after the other.
 */
export interface BatchAdmission {
  /** Unfinished (QUEUED or PROCESSING) batches the merchant may already have in the mode. */
  maxOpen: number;
  /** Sandbox: the items its batches created after `allowanceSince` may hold, this one included; null in live mode. */
  sandboxItemsPerDay: number | null;
  allowanceSince: Date;
  /** The error for a batch refused with what the check saw, read through `reader`. */
  refusal(seen: BatchAdmissionSeen, reader: Db | DbTx): Promise<AppError>;
}

export interface NewBatchRows {
  /** The batch row as it will read once stored (its status is set here). */
  batch: NewBatchRow;
  chunks: ChunkRows[];
  /** Its worker jobs, added with the last piece (the one that makes the batch QUEUED). */
  jobs: NewJobRow[];
  admission: BatchAdmission;
}

/** The admission checks through Prisma, in the first piece's transaction (SQLite: the write lock is the merchant's lock too). */
async function admit(tx: DbTx, batch: NewBatchRow, admission: BatchAdmission) {
  const { merchantId, mode } = batch;
  const perDay = admission.sandboxItemsPerDay;
  if (perDay !== null) await tx.$executeRaw`UPDATE "Merchant" SET "id" = "id" WHERE "id" = ${merchantId}`;
  const open = await tx.batch.count({ where: { merchantId, mode, status: { in: ["QUEUED", "PROCESSING"] } } });
  const window = { merchantId, mode: "sandbox", createdAt: { gt: admission.allowanceSince } };
  const used = perDay === null ? 0 : ((await tx.batch.aggregate({ where: window, _sum: { total: true } }))._sum.total ?? 0);
  if (open >= admission.maxOpen || (perDay !== null && used + batch.total > perDay)) throw await admission.refusal({ open, used }, tx);
}

/** Stores the batch, its chunks and its jobs (see the file's comment). */
export async function storeBatchInPieces(db: Db, rows: NewBatchRows): Promise<void> {
  if (dbProvider(db) === "postgresql") return storeOnPostgres(db, rows);
  const id = rows.batch.id;
  let stored = 0;
  let begun = false;
  const perInsert = Math.max(1, Math.floor(ITEMS_PER_INSERT / rows.batch.chunkSize));
  try {
    for (;;) {
      const queued = await db.$transaction(async (tx) => {
        if (!begun) {
          await admit(tx, rows.batch, rows.admission);
          await tx.batch.create({ data: { ...rows.batch, status: CREATING_STATUS }, select: { id: true } });
        }
        // At least one statement per piece, so each piece moves the batch on.
        for (;;) {
          const piece = rows.chunks.slice(stored, stored + perInsert);
          await tx.batchChunk.createMany({ data: piece.map(({ items: _items, ...chunk }) => chunk) });
          await tx.batchChunkItems.createMany({ data: piece.map((c) => ({ chunkId: c.id, items: c.items })) });
          stored = Math.min(rows.chunks.length, stored + perInsert);
          if (stored === rows.chunks.length) break;
          // SQLite's statements settle without I/O: without this, the whole batch would be one stretch
          // of the event loop, and no other writer could even get in line.
          await new Promise((resolve) => setImmediate(resolve));
          if (othersWaitToWrite(db)) break;
        }
        if (stored < rows.chunks.length) return false;
        await tx.batch.update({ where: { id }, data: { status: "QUEUED" }, select: { id: true } });
        await tx.job.createMany({ data: rows.jobs });
        return true;
      });
      begun = true;
      if (queued) return;
    }
  } catch (err) {
    // Pieces already committed go with the row (its chunks cascade); the error is the caller's answer.
    if (begun) await db.batch.deleteMany({ where: { id, status: CREATING_STATUS } }).catch(() => undefined);
    throw err;
  }
}

async function storeOnPostgres(db: Db, rows: NewBatchRows): Promise<void> {
  const { admission } = rows;
  const seen = await admitAndQueueNewBatch(db, rows.batch, rows.chunks, rows.jobs, {
    maxOpen: admission.maxOpen,
    sandboxItemsPerDay: admission.sandboxItemsPerDay,
    allowanceSince: admission.allowanceSince,
  });
  if (!seen.queued) throw await admission.refusal(seen, db);
}
