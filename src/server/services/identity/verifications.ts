import type { z } from "zod";
import { CONSENT_CSV_COLUMNS } from "@/lib/consent";
import type { Mode } from "@/lib/mode";
import type { VerificationFilters, verificationsListInput } from "@/lib/schemas/verifications";
import type { Db } from "@/server/db/client";
import { CSV_BOM, csvLine } from "@/server/lib/csv";
import { afterCursor, encodeCursor, newestFirst, toPage } from "@/server/lib/pagination";
import { nameMatchResult } from "@/server/services/identity/name-match";

const VERIFICATION_SELECT = {
  id: true,
  kind: true,
  subject: true,
  nameQueried: true,
  outcome: true,
  nameMatch: true,
  errorCode: true,
  requestId: true,
  batchId: true,
  consent: true,
  purpose: true,
  consentSource: true,
  createdAt: true,
} as const;

interface ConsentColumns {
  consent: boolean | null;
  purpose: string | null;
  consentSource: string | null;
}

const filterWhere = (merchantId: string, mode: Mode, f: VerificationFilters) => ({
  merchantId,
  mode,
  ...(f.kind ? { kind: f.kind } : {}),
  ...(f.subject ? { subject: f.subject } : {}),
});

/**
 * The consent each row was checked under: its own, or for a batch's item, its batch's (one consent
 * for a whole batch, stored with it).
 */
async function withConsent<R extends ConsentColumns & { batchId: string | null }>(db: Db, rows: R[]): Promise<R[]> {
  const batchIds = [...new Set(rows.flatMap((r) => (r.batchId && r.consentSource === null ? [r.batchId] : [])))];
  if (batchIds.length === 0) return rows;
  const batches = await db.batch.findMany({ where: { id: { in: batchIds } }, select: { id: true, consent: true, purpose: true, consentSource: true } });
  const byId = new Map(batches.map((b) => [b.id, b]));
  return rows.map((r) => {
    const b = r.batchId && r.consentSource === null ? byId.get(r.batchId) : undefined;
    return b ? { ...r, consent: b.consent, purpose: b.purpose, consentSource: b.consentSource } : r;
  });
}

/** PAN and EPFO checks in one mode, newest first; by exact subject or kind. */
export async function listVerifications(db: Db, merchantId: string, mode: Mode, input: z.infer<typeof verificationsListInput>) {
  const rows = await db.verification.findMany({
    where: { ...filterWhere(merchantId, mode, input), ...afterCursor(input.cursor) },
    orderBy: newestFirst,
    take: input.limit + 1,
    select: VERIFICATION_SELECT,
  });
  const { rows: page, nextCursor } = toPage(rows, input.limit);
  return {
    items: (await withConsent(db, page)).map((v) => ({
      ...v,
      kind: v.kind as "PAN" | "EPFO",
      consentSource: v.consentSource as "request" | "standing" | null,
      nameMatchResult: v.nameMatch === null ? null : nameMatchResult(v.nameMatch),
    })),
    nextCursor,
  };
}

export const VERIFICATION_CSV_COLUMNS = [
  ...["verification_id", "created_at", "kind", "subject", "outcome", "error_code", "name_queried", "name_match", "request_id", "batch_id"],
  ...CONSENT_CSV_COLUMNS,
  "mode",
] as const;

const EXPORT_BATCH = 500;

/** The verification history as CSV, filtered like the page, newest first, with each check's consent and purpose. */
export async function* exportVerificationsCsv(db: Db, merchantId: string, mode: Mode, filters: VerificationFilters): AsyncGenerator<string> {
  yield `${CSV_BOM}${csvLine([...VERIFICATION_CSV_COLUMNS])}`;
  const where = filterWhere(merchantId, mode, filters);
  let cursor: string | undefined;
  for (;;) {
    const rows = await db.verification.findMany({
      where: { ...where, AND: [afterCursor(cursor)] },
      orderBy: newestFirst,
      take: EXPORT_BATCH,
      select: VERIFICATION_SELECT,
    });
    if (rows.length === 0) return;
    yield (await withConsent(db, rows))
      .map((v) =>
        csvLine([
          v.id,
          v.createdAt.toISOString(),
          v.kind,
          v.subject,
          v.outcome,
          v.errorCode,
          v.nameQueried,
          v.nameMatch === null ? null : v.nameMatch.toFixed(2),
          v.requestId,
          v.batchId,
          v.consent === null ? null : String(v.consent),
          v.purpose,
          v.consentSource,
          mode,
        ]),
      )
      .join("");
    if (rows.length < EXPORT_BATCH) return;
    cursor = encodeCursor(rows[rows.length - 1]!);
  }
}
