import type { z } from "zod";
import type { Mode } from "@/lib/mode";
import type { verificationsListInput } from "@/lib/schemas/verifications";
import type { Db } from "@/server/db/client";
import { afterCursor, newestFirst, toPage } from "@/server/lib/pagination";
import { nameMatchResult } from "@/server/services/identity/name-match";

/** PAN and EPFO checks in one mode, newest first; by exact subject or kind. */
export async function listVerifications(db: Db, merchantId: string, mode: Mode, input: z.infer<typeof verificationsListInput>) {
  const rows = await db.verification.findMany({
    where: {
      merchantId,
      mode,
      ...(input.kind ? { kind: input.kind } : {}),
      ...(input.subject ? { subject: input.subject } : {}),
      ...afterCursor(input.cursor),
    },
    orderBy: newestFirst,
    take: input.limit + 1,
    select: {
      id: true,
      kind: true,
      subject: true,
      nameQueried: true,
      outcome: true,
      nameMatch: true,
      errorCode: true,
      requestId: true,
      batchId: true,
      createdAt: true,
    },
  });
  const { rows: page, nextCursor } = toPage(rows, input.limit);
  return {
    items: page.map((v) => ({
      ...v,
      kind: v.kind as "PAN" | "EPFO",
      nameMatchResult: v.nameMatch === null ? null : nameMatchResult(v.nameMatch),
    })),
    nextCursor,
  };
}
