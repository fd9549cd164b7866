import { paymentsGetInput, paymentsListInput } from "@/lib/schemas/payments";
import { getPaymentDetail, listPayments } from "@/server/services/payments/queries";
import { modeProcedure } from "@/server/trpc/dashboard-procedures";
import { router } from "@/server/trpc/init";

export const paymentsRouter = router({
  /** The mode's payments, newest first; filters by status, order id and IST dates. */
  list: modeProcedure.input(paymentsListInput).query(({ ctx, input }) => listPayments(ctx.services.db, ctx.merchantId, ctx.mode, input)),

  /** PAYMENT_NOT_FOUND (NOT_FOUND) for another merchant's or mode's payment, as for an unknown id. */
  get: modeProcedure.input(paymentsGetInput).query(({ ctx, input }) => getPaymentDetail(ctx.services.db, ctx.merchantId, ctx.mode, input.paymentId)),
});
