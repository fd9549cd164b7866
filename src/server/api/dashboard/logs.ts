import { logsGetInput, logsListInput } from "@/lib/schemas/logs";
import { getRequestLog, listRequestLogs } from "@/server/services/audit/request-logs";
import { modeProcedure } from "@/server/trpc/dashboard-procedures";
import { router } from "@/server/trpc/init";

export const logsRouter = router({
  /** The merchant's REST calls in the selected mode, newest first. */
  list: modeProcedure.input(logsListInput).query(({ ctx, input }) => listRequestLogs(ctx.services.db, ctx.merchantId, ctx.mode, input)),

  /** One call in full (redacted bodies); NOT_FOUND for another merchant's or mode's record. */
  get: modeProcedure.input(logsGetInput).query(({ ctx, input }) => getRequestLog(ctx.services.db, ctx.merchantId, ctx.mode, input.requestId, input.id)),
});
