import { apiOk } from "@/server/rest/envelope";
import { createRefund } from "@/server/services/refunds/refunds";
import { restProcedure } from "@/server/rest/trpc";
import { createRefundInput, createRefundMeta, createRefundOutput } from "@/server/api/refunds/create-refund.schema";

export const createRefundProcedure = restProcedure(createRefundMeta, {
  input: createRefundInput,
  output: createRefundOutput,
  resolve: async ({ ctx, input }) => {
    const { paymentId, ...body } = input;
    return apiOk(await createRefund(ctx.services, ctx.services.paymentProcessors[ctx.auth.mode], ctx.auth, paymentId, body));
  },
});
