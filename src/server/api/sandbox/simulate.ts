import { apiOk } from "@/server/rest/envelope";
import { simulatePayment } from "@/server/services/payments/simulate";
import { restProcedure } from "@/server/rest/trpc";
import { simulatePaymentInput, simulatePaymentMeta, simulatePaymentOutput } from "@/server/api/sandbox/simulate.schema";

export const simulatePaymentProcedure = restProcedure(simulatePaymentMeta, {
  input: simulatePaymentInput,
  output: simulatePaymentOutput,
  resolve: async ({ ctx, input }) => {
    const { paymentId, ...body } = input;
    return apiOk(await simulatePayment(ctx.services.db, ctx.services.paymentProcessors.sandbox, ctx.auth, paymentId, body));
  },
});
