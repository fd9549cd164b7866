/**
 * Automatic refunds (a late attempt's money sent back) that need an operator: those that failed, and
 * those the processor has not answered for an hour while the job keeps trying. For a failed one the
 * customer still waits for money Parakh took: the operator checks the processor's record of the
 * refund (a try that timed out may have reached it) and returns the money there if it is not.
 */
import { formatPaise } from "@/lib/money";
import type { Db } from "@/server/db/client";
import { isoOrNull } from "@/server/lib/dates";

/** Pending this long without the processor's answer, an automatic refund is shown as waiting. */
export const AUTO_REFUND_WAITING_MS = 60 * 60 * 1000;
/** Failed automatic refunds stay listed this long. */
export const AUTO_REFUND_LISTED_DAYS = 30;
const MAX_LISTED = 50;

export interface AutomaticRefundNeedingAttention {
  refundId: string;
  paymentId: string;
  merchantId: string;
  merchantName: string;
  mode: string;
  amount: string;
  status: "FAILED" | "PENDING";
  /** The failure's reason; for a waiting refund, the last error of its job (Parakh's own words, no personal data). */
  reason: string | null;
  createdAt: string;
  /** When it failed; null while waiting. */
  failedAt: string | null;
}

export async function automaticRefundsNeedingAttention(db: Db, now = new Date()): Promise<AutomaticRefundNeedingAttention[]> {
  const rows = await db.refund.findMany({
    where: {
      attemptId: { not: null },
      OR: [
        { status: "FAILED", updatedAt: { gte: new Date(now.getTime() - AUTO_REFUND_LISTED_DAYS * 86_400_000) } },
        { status: "PENDING", createdAt: { lt: new Date(now.getTime() - AUTO_REFUND_WAITING_MS) } },
      ],
    },
    orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
    take: MAX_LISTED,
  });
  if (rows.length === 0) return [];
  const merchants = await db.merchant.findMany({ where: { id: { in: [...new Set(rows.map((r) => r.merchantId))] } }, select: { id: true, name: true } });
  const names = new Map(merchants.map((m) => [m.id, m.name]));
  const waiting = rows.filter((r) => r.status === "PENDING").map((r) => r.id);
  const jobs = waiting.length
    ? await db.job.findMany({
        where: { type: "refund.process", subjectId: { in: waiting } },
        orderBy: { updatedAt: "desc" },
        select: { subjectId: true, lastError: true },
      })
    : [];
  const lastErrors = new Map<string, string | null>();
  for (const j of jobs) if (j.subjectId && !lastErrors.has(j.subjectId)) lastErrors.set(j.subjectId, j.lastError);
  return rows.map((r) => ({
    refundId: r.id,
    paymentId: r.paymentId,
    merchantId: r.merchantId,
    merchantName: names.get(r.merchantId) ?? r.merchantId,
    mode: r.mode,
    amount: formatPaise(r.amountPaise),
    status: r.status === "FAILED" ? "FAILED" : "PENDING",
    reason: r.status === "FAILED" ? r.failureReason : (lastErrors.get(r.id) ?? null),
    createdAt: r.createdAt.toISOString(),
    failedAt: r.status === "FAILED" ? isoOrNull(r.updatedAt) : null,
  }));
}
