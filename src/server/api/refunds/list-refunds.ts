import { apiOk } from "@/server/rest/envelope";
import { listPaymentRefunds } from "@/server/services/refunds/refunds";
import { restProcedure } from "@/server/rest/trpc";
import { listRefundsInput, listRefundsMeta, listRefundsOutput } from "@/server/api/refunds/list-refunds.schema";

export const listRefundsProcedure = restProcedure(listRefundsMeta, {
  input: listRefundsInput,
  output: listRefundsOutput,
  resolve: async ({ ctx, input }) => apiOk({ items: await listPaymentRefunds(ctx.services.db, ctx.auth.merchantId, ctx.auth.mode, input.paymentId) }),
});
