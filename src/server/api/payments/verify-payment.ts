import { apiOk } from "@/server/rest/envelope";
import { verifyPayment } from "@/server/services/payments/verify";
import { restProcedure } from "@/server/rest/trpc";
import { verifyPaymentInput, verifyPaymentMeta, verifyPaymentOutput } from "@/server/api/payments/verify-payment.schema";

export const verifyPaymentProcedure = restProcedure(verifyPaymentMeta, {
  input: verifyPaymentInput,
  output: verifyPaymentOutput,
  resolve: async ({ ctx, input }) => apiOk(await verifyPayment(ctx.services.db, ctx.auth.merchantId, ctx.auth.mode, input)),
});
