import { z } from "zod";
import { payInput } from "@/lib/schemas/checkout";
import {
  abandonFromCheckout,
  cancelFromCheckout,
  checkoutState,
  handOffCardFromCheckout,
  payFromCheckout,
  requireCheckoutToken,
  simulateCheckoutOutcome,
} from "@/server/services/payments/checkout-page";
import { publicDashboardProcedure } from "@/server/trpc/dashboard-procedures";
import { router } from "@/server/trpc/init";

const tokenInput = z.object({ paymentId: z.string().min(1).max(80), token: z.string().min(1).max(200) });

/** The hosted page's own endpoints: public, but each needs the token the page was rendered with. */
const checkoutProcedure = publicDashboardProcedure.input(tokenInput).use(({ input, next }) => {
  const { paymentId, token } = input as z.infer<typeof tokenInput>;
  requireCheckoutToken(paymentId, token);
  return next();
});

export const checkoutRouter = router({
  state: checkoutProcedure.query(({ ctx, input }) => checkoutState(ctx.services.db, input.paymentId)),

  pay: checkoutProcedure
    .input(z.object({ payment: payInput }))
    .mutation(({ ctx, input }) => payFromCheckout(ctx.services.db, ctx.services.paymentProcessors, input.paymentId, input.payment)),

  /** Live cards: the processor's payment session, for its own checkout page (no card data comes here). */
  cardHandOff: checkoutProcedure
    // Takes nothing but the page's token: anything else sent along (a card number…) is refused, not ignored.
    .input(tokenInput.strict())
    .mutation(({ ctx, input }) => handOffCardFromCheckout(ctx.services.db, ctx.services.paymentProcessors, input.paymentId)),

  cancel: checkoutProcedure.mutation(({ ctx, input }) => cancelFromCheckout(ctx.services.db, ctx.services.paymentProcessors, input.paymentId)),

  /** Leaves the pending attempt: "Use another method" (then retry) or "Cancel payment" (then cancel). */
  abandon: checkoutProcedure
    .input(z.object({ then: z.enum(["retry", "cancel"]) }))
    .mutation(({ ctx, input }) => abandonFromCheckout(ctx.services.db, ctx.services.paymentProcessors, input.paymentId, input.then)),

  /** Sandbox only: the UPI QR/intent simulator and the mock bank page finish the pending attempt. */
  simulate: checkoutProcedure
    .input(z.object({ outcome: z.enum(["SUCCESS", "FAILED"]) }))
    .mutation(({ ctx, input }) => simulateCheckoutOutcome(ctx.services.db, input.paymentId, input.outcome)),
});
