import { overviewStats } from "@/server/services/audit/overview";
import { modeProcedure } from "@/server/trpc/dashboard-procedures";
import { router } from "@/server/trpc/init";

export const overviewRouter = router({
  stats: modeProcedure.query(({ ctx }) => overviewStats(ctx.services.db, ctx.merchantId, ctx.mode)),
});
