import { parseAmountToPaise } from "@/lib/money";
import { refundCreateInput, refundsForPaymentInput, refundsListInput } from "@/lib/schemas/refunds";
import { listDashboardPaymentRefunds, listDashboardRefunds } from "@/server/services/refunds/dashboard";
import { createRefund } from "@/server/services/refunds/refunds";
import { modeProcedure } from "@/server/trpc/dashboard-procedures";
import { router } from "@/server/trpc/init";

export const refundsRouter = router({
  /** Refunds a SUCCESS payment of the mode, in full or in part, through the mode's processor (as the API does). */
  create: modeProcedure.input(refundCreateInput).mutation(({ ctx, input }) =>
    createRefund(ctx.services, ctx.services.paymentProcessors[ctx.mode], { merchantId: ctx.merchantId, mode: ctx.mode }, input.paymentId, {
      // The schema has checked the amount parses.
      amount: parseAmountToPaise(input.amount)!,
      reason: input.reason || null,
    }),
  ),

  /** The mode's refunds, newest first; filters by status, an id (refund, payment, merchant refund or order) and IST dates. */
  list: modeProcedure.input(refundsListInput).query(({ ctx, input }) => listDashboardRefunds(ctx.services.db, ctx.merchantId, ctx.mode, input)),

  /** One payment's refunds, newest first; PAYMENT_NOT_FOUND for another merchant's or mode's payment. */
  forPayment: modeProcedure
    .input(refundsForPaymentInput)
    .query(({ ctx, input }) => listDashboardPaymentRefunds(ctx.services.db, ctx.merchantId, ctx.mode, input.paymentId)),
});
