import { verificationsListInput } from "@/lib/schemas/verifications";
import { listVerifications } from "@/server/services/identity/verifications";
import { modeProcedure } from "@/server/trpc/dashboard-procedures";
import { router } from "@/server/trpc/init";

export const verificationsRouter = router({
  /** PAN and EPFO checks in the selected mode, newest first; search by exact subject or kind. */
  list: modeProcedure.input(verificationsListInput).query(({ ctx, input }) => listVerifications(ctx.services.db, ctx.merchantId, ctx.mode, input)),
});
