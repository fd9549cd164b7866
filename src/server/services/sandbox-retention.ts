import type { Db } from "@/server/db/client";

/** Merchants looked at per page, batches per delete (each takes its chunks along), other rows per delete. */
const MERCHANT_PAGE = 500;
const BATCHES_PER_DELETE = 50;
const ROWS_PER_DELETE = 1000;

export interface SandboxPurge {
  batches: number;
  verifications: number;
  auditRecords: number;
}

async function inChunks(size: number, find: (take: number) => Promise<{ id: string }[]>, remove: (ids: string[]) => Promise<{ count: number }>) {
  let deleted = 0;
  for (;;) {
    const rows = await find(size);
    if (rows.length === 0) return deleted;
    deleted += (await remove(rows.map((r) => r.id))).count;
  }
}

/**
 * Sandbox data is test data: past its retention a sandbox batch (its chunks with the items and
 * results), a sandbox verification row and a sandbox request-log record are deleted whole. Live data
 * keeps the audit rule. Walks the merchants and deletes by (merchantId, mode, createdAt), an index
 * each of these tables has, so the years of live rows are never scanned; a few rows at a time keep
 * each lock short.
 */
export async function purgeSandboxData(db: Db, retentionDays: number, now = new Date()): Promise<SandboxPurge> {
  const cutoff = new Date(now.getTime() - retentionDays * 86_400_000);
  const purged: SandboxPurge = { batches: 0, verifications: 0, auditRecords: 0 };
  let after: string | undefined;
  for (;;) {
    const merchants = await db.merchant.findMany({
      where: after === undefined ? {} : { id: { gt: after } },
      orderBy: { id: "asc" },
      select: { id: true },
      take: MERCHANT_PAGE,
    });
    for (const { id: merchantId } of merchants) {
      const where = { merchantId, mode: "sandbox", createdAt: { lt: cutoff } };
      purged.batches += await inChunks(
        BATCHES_PER_DELETE,
        (take) => db.batch.findMany({ where, select: { id: true }, take }),
        (ids) => db.batch.deleteMany({ where: { id: { in: ids } } }),
      );
      purged.verifications += await inChunks(
        ROWS_PER_DELETE,
        (take) => db.verification.findMany({ where, select: { id: true }, take }),
        (ids) => db.verification.deleteMany({ where: { id: { in: ids } } }),
      );
      purged.auditRecords += await inChunks(
        ROWS_PER_DELETE,
        (take) => db.auditLog.findMany({ where, select: { id: true }, take }),
        (ids) => db.auditLog.deleteMany({ where: { id: { in: ids } } }),
      );
    }
    if (merchants.length < MERCHANT_PAGE) return purged;
    after = merchants[merchants.length - 1]!.id;
  }
}
