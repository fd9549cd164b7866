import { apiOk } from "@/server/rest/envelope";
import { getRefund } from "@/server/services/refunds/refunds";
import { restProcedure } from "@/server/rest/trpc";
import { getRefundInput, getRefundMeta, getRefundOutput } from "@/server/api/refunds/get-refund.schema";

export const getRefundProcedure = restProcedure(getRefundMeta, {
  input: getRefundInput,
  output: getRefundOutput,
  resolve: async ({ ctx, input }) => apiOk(await getRefund(ctx.services.db, ctx.auth.merchantId, ctx.auth.mode, input.refundId)),
});
