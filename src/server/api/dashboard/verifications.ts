import type { z } from "zod";
import { verificationsListInput } from "@/lib/schemas/verifications";
import type { Db } from "@/server/db/client";
import { afterCursor, newestFirst, toPage } from "@/server/api/dashboard/logs";
import { nameMatchResult } from "@/server/services/identity/name-match";
import { modeProcedure } from "@/server/trpc/dashboard-procedures";
import { router } from "@/server/trpc/init";

export async function listVerifications(db: Db, merchantId: string, mode: "sandbox" | "live", input: z.infer<typeof verificationsListInput>) {
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
    select: { id: true, kind: true, subject: true, nameQueried: true, outcome: true, nameMatch: true, errorCode: true, requestId: true, createdAt: true },
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

export const verificationsRouter = router({
  /** PAN and EPFO checks in the selected mode, newest first; search by exact subject or kind. */
  list: modeProcedure.input(verificationsListInput).query(({ ctx, input }) => listVerifications(ctx.services.db, ctx.merchantId, ctx.mode, input)),
});
