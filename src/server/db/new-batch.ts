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
 * (see queueOnPostgres): through Prisma, a 10,000-item batch's megabyte of items and the
 * transaction around them cost about 30 ms before its first chunk could run.
 */
import { changedRows, rowsOf, sql, sqlJoined, sqlWithParts, type Statement } from "./atomic-write";
import { postgresWriter } from "./atomic-write-postgres";
import { dbProvider, othersWaitToWrite, postgresPool, Prisma, type Db, type DbTx } from "./client";

/** A new chunk's row and the row of its items, as a new batch stores them. */
export interface NewChunkRow {
  id: string;
  batchId: string;
  seq: number;
  status: string;
  results: string;
  availableAt: Date;
  completedAt: Date | null;
  items: string;
}

/** A queue job's row as a new batch adds its workers (the job queue's own row, src/server/jobs/queue.ts). */
export interface NewJobRow {
  id: string;
  type: string;
  payload: string;
  status: string;
  runAt: Date;
  maxAttempts: number;
  subjectId: string | null;
}

const iso = (d: Date | null) => d && d.toISOString();

/** `(${chunkId}::text, ${items}::text), …` for `n` chunks: the text made once per count. */
const itemsValuesTexts = new Map<number, TemplateStringsArray>();
function chunkItemsValues(chunks: NewChunkRow[]): Statement {
  let strings = itemsValuesTexts.get(chunks.length);
  if (!strings) {
    const parts = ["(", ...chunks.flatMap((_, i) => ["::text, ", i === chunks.length - 1 ? "::text)" : "::text), ("])];
    strings = Object.freeze(Object.assign([...parts], { raw: parts })) as TemplateStringsArray;
    itemsValuesTexts.set(chunks.length, strings);
  }
  return { strings, values: chunks.flatMap((c) => [c.id, c.items]) };
}

/** A new batch's row as stored. */
export interface NewBatchRow {
  id: string;
  merchantId: string;
  mode: string;
  kind: string;
  total: number;
  accepted: number;
  rejected: number;
  processed: number;
  succeeded: number;
  failed: number;
  chunkSize: number;
  chunkCount: number;
  webhookUrl: string | null;
  clientBatchId: string | null;
  requestId: string;
  apiKeyId: string | null;
  /** The batch's consent, purpose and source (C6), for all its items. */
  consent: boolean | null;
  purpose: string | null;
  consentSource: string | null;
  createdAt: Date;
}

/** What a new batch's admission check saw: the merchant's unfinished batches in the mode, and its sandbox items in the window. */
export interface BatchAdmissionSeen {
  open: number;
  used: number;
}

/** A batch still being stored: hidden from every reader until its last piece commits. */
export const CREATING_STATUS = "CREATING";
/** Items per insert statement, in whole chunks: about 0.5 MiB of items JSON, a few ms of the event loop on SQLite. */
const ITEMS_PER_INSERT = 500;

/**
 * What a new batch must pass to be stored, checked in the write that adds its row; in sandbox after a
 * lock on the merchant's row, so racing submissions are counted one after the other.
 */
export interface AdmissionLimits {
  /** Unfinished (QUEUED or PROCESSING) batches the merchant may already have in the mode. */
  maxOpen: number;
  /** Sandbox: the items its batches created after `allowanceSince` may hold, this one included; null in live mode. */
  sandboxItemsPerDay: number | null;
  allowanceSince: Date;
}

export interface BatchAdmission extends AdmissionLimits {
  /** The error for a batch refused with what the check saw, read through `reader`. */
  refusal(seen: BatchAdmissionSeen, reader: Db | DbTx): Promise<Error>;
}

export interface NewBatchRows {
  /** The batch row as it will read once stored (its status is set here). */
  batch: NewBatchRow;
  chunks: NewChunkRow[];
  /** Its worker jobs, added with the last piece (the one that makes the batch QUEUED). */
  jobs: NewJobRow[];
  admission: BatchAdmission;
}

/**
 * The admission rule, once for both databases: what a new batch's check sees (the merchant's
 * unfinished batches in the mode; in sandbox, the items of its batches created after
 * `allowanceSince`) and whether the batch may be stored ("admitted", 1 or 0): fewer than `maxOpen`
 * unfinished, and in sandbox room left in the allowance for this batch's items. SQLite runs it in
 * the first piece's transaction, PostgreSQL inside the statement that stores the batch.
 */
export function admissionSeen(batch: Pick<NewBatchRow, "merchantId" | "mode" | "total">, admission: AdmissionLimits): Statement {
  const perDay = admission.sandboxItemsPerDay;
  const limited = perDay === null ? 0 : 1;
  return sql`SELECT "open", "used", CASE WHEN "open" < ${admission.maxOpen} AND (${limited} = 0 OR "used" + ${batch.total} <= ${perDay ?? 0})
      THEN 1 ELSE 0 END AS "admitted"
    FROM (SELECT
      CAST((SELECT count(*) FROM "Batch" WHERE "merchantId" = ${batch.merchantId} AND "mode" = ${batch.mode} AND "status" IN ('QUEUED', 'PROCESSING')) AS INTEGER) AS "open",
      CAST((SELECT coalesce(sum("total"), 0) FROM "Batch" WHERE ${limited} = 1 AND "merchantId" = ${batch.merchantId} AND "mode" = 'sandbox'
        AND "createdAt" > ${admission.allowanceSince}) AS INTEGER) AS "used") AS "counts"`;
}

/** Racing sandbox submissions of a merchant take its row's lock first, so each counts the ones before it. */
const lockMerchant = (merchantId: string) => sql`UPDATE "Merchant" SET "id" = "id" WHERE "id" = ${merchantId}`;

/** A statement of the `sql` tag as a Prisma raw query, for the transactions Prisma runs. */
const prismaSql = (st: Statement) => Prisma.sql(st.strings, ...(st.values as unknown[]));

/** The admission check in the first piece's transaction (SQLite: the write lock is the merchant's lock too). */
async function admitOnSqlite(tx: DbTx, batch: NewBatchRow, admission: BatchAdmission) {
  if (admission.sandboxItemsPerDay !== null) await tx.$executeRaw(prismaSql(lockMerchant(batch.merchantId)));
  const [seen] = await tx.$queryRaw<{ open: unknown; used: unknown; admitted: unknown }[]>(prismaSql(admissionSeen(batch, admission)));
  const open = Number(seen!.open);
  const used = Number(seen!.used);
  if (Number(seen!.admitted) !== 1) throw await admission.refusal({ open, used }, tx);
}

/** Stores the batch, its chunks and its jobs (see the file's comment). */
export async function storeBatchInPieces(db: Db, rows: NewBatchRows): Promise<void> {
  if (dbProvider(db) === "postgresql") return queueOnPostgres(db, rows);
  const id = rows.batch.id;
  let stored = 0;
  let begun = false;
  const perInsert = Math.max(1, Math.floor(ITEMS_PER_INSERT / rows.batch.chunkSize));
  try {
    for (;;) {
      const queued = await db.$transaction(async (tx) => {
        if (!begun) {
          await admitOnSqlite(tx, rows.batch, rows.admission);
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

/**
 * PostgreSQL: a new batch's row (QUEUED) with its chunks, their items rows and its worker jobs, in one
 * statement on pg directly, written only if admissionSeen admits it. In sandbox the merchant's row is
 * locked first, in the same transaction: the statement after it sees every racing submission that got
 * the lock before. Through Prisma, a 10,000-item batch's megabyte of
 * items JSON and the transactions around it cost about 30 ms before its first chunk could run. Each
 * chunk's items go as a text parameter of their own: as one text[] they were escaped by the client and
 * parsed back by PostgreSQL's array reader, about 50 ms for a megabyte against 5. Times go as ISO text:
 * PostgreSQL reads them as UTC.
 */
async function queueOnPostgres(db: Db, rows: NewBatchRows): Promise<void> {
  const { batch: b, chunks, jobs, admission } = rows;
  const head = {
    ...sqlWithParts`WITH "seen" AS (${admissionSeen(b, admission)}),
      "queued" AS (INSERT INTO "Batch" ("id","merchantId","mode","kind","status","total","accepted","rejected","processed","succeeded","failed",
          "chunkSize","chunkCount","webhookUrl","clientBatchId","requestId","apiKeyId","consent","purpose","consentSource","createdAt")
        SELECT ${b.id}, ${b.merchantId}, ${b.mode}, ${b.kind}, 'QUEUED', ${b.total}, ${b.accepted}, ${b.rejected}, ${b.processed}, ${b.succeeded}, ${b.failed},
          ${b.chunkSize}, ${b.chunkCount}, ${b.webhookUrl}, ${b.clientBatchId}, ${b.requestId}, ${b.apiKeyId},
          ${b.consent}::boolean, ${b.purpose}::text, ${b.consentSource}::text, ${iso(b.createdAt)}::timestamp(3)
        FROM "seen" WHERE "seen"."admitted" = 1
        RETURNING "id"),
      "chunks" AS (INSERT INTO "BatchChunk" ("id","batchId","seq","status","results","availableAt","completedAt")
        SELECT c."id", ${b.id}, c."seq", c."status", c."results", c."availableAt"::timestamp(3), c."completedAt"::timestamp(3)
        FROM unnest(${chunks.map((c) => c.id)}::text[], ${chunks.map((c) => c.seq)}::int[], ${chunks.map((c) => c.status)}::text[],
          ${chunks.map((c) => c.results)}::text[], ${chunks.map((c) => iso(c.availableAt))}::text[], ${chunks.map((c) => iso(c.completedAt))}::text[])
          AS c("id", "seq", "status", "results", "availableAt", "completedAt")
        WHERE EXISTS (SELECT 1 FROM "queued")),
      "items" AS (INSERT INTO "BatchChunkItems" ("chunkId","items") SELECT * FROM (VALUES `,
    // Planned each run, so the statement is not kept prepared: its text differs with the chunk count.
    planEachRun: true,
  };
  const tail = sql`) AS i("chunkId", "items") WHERE EXISTS (SELECT 1 FROM "queued")),
      "jobs" AS (INSERT INTO "Job" ("id","type","payload","status","runAt","maxAttempts","subjectId","attempts","createdAt","updatedAt")
        SELECT j."id", j."type", j."payload", j."status", j."runAt"::timestamp(3), j."maxAttempts", j."subjectId", 0, ${b.createdAt}, ${b.createdAt}
        FROM unnest(${jobs.map((j) => j.id)}::text[], ${jobs.map((j) => j.type)}::text[], ${jobs.map((j) => j.payload)}::text[], ${jobs.map((j) => j.status)}::text[],
          ${jobs.map((j) => iso(j.runAt))}::text[], ${jobs.map((j) => j.maxAttempts)}::int[], ${jobs.map((j) => j.subjectId)}::text[])
          AS j("id", "type", "payload", "status", "runAt", "maxAttempts", "subjectId")
        WHERE EXISTS (SELECT 1 FROM "queued"))
      SELECT "open", "used", (SELECT count(*) FROM "queued")::int AS "queued" FROM "seen"`;
  const statement = rowsOf<{ open: number; used: number; queued: number }>(sqlJoined(sqlJoined(head, chunkItemsValues(chunks)), tail));
  const writer = postgresWriter(postgresPool(db));
  const [row] =
    admission.sandboxItemsPerDay === null
      ? await writer.run(statement)
      : await writer.transaction(
          (function* () {
            yield changedRows(lockMerchant(b.merchantId));
            return (yield statement) as { open: number; used: number; queued: number }[];
          })(),
        );
  if (row!.queued !== 1) throw await admission.refusal({ open: row!.open, used: row!.used }, db);
}
