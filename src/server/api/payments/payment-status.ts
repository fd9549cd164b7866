import { apiOk } from "@/server/rest/envelope";
import { findMerchantPaymentStatus } from "@/server/services/payments/payments";
import { restProcedure } from "@/server/rest/trpc";
import { paymentStatusInput, paymentStatusMeta, paymentStatusOutput } from "@/server/api/payments/payment-status.schema";

export const paymentStatusProcedure = restProcedure(paymentStatusMeta, {
  input: paymentStatusInput,
  output: paymentStatusOutput,
  resolve: async ({ ctx, input }) => {
    const { merchantId, mode } = ctx.auth;
    return apiOk(await findMerchantPaymentStatus(ctx.services.atomicWriter, merchantId, mode, input.paymentId));
  },
});
