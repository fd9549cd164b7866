import { apiOk } from "@/server/rest/envelope";
import { findMerchantPayment, statusView } from "@/server/services/payments/payments";
import { merchantProcedure } from "@/server/rest/trpc";
import { paymentStatusInput, paymentStatusMeta, paymentStatusOutput } from "@/server/api/payments/payment-status.schema";

export const paymentStatusProcedure = merchantProcedure
  .meta(paymentStatusMeta)
  .input(paymentStatusInput)
  .output(paymentStatusOutput)
  .query(async ({ ctx, input }) => {
    const { merchantId, mode } = ctx.auth;
    const p = await findMerchantPayment(ctx.services.db, merchantId, mode, input.paymentId);
    return apiOk(statusView(p));
  });
