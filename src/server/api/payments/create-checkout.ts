import { AppError } from "@/server/errors";
import { apiOk } from "@/server/rest/envelope";
import { createdView, createPayment } from "@/server/services/payments/payments";
import { merchantProcedure } from "@/server/trpc/procedures";
import { createCheckoutInput, createCheckoutMeta, createCheckoutOutput } from "@/server/api/payments/create-checkout.schema";

export const createCheckoutProcedure = merchantProcedure
  .meta(createCheckoutMeta)
  .input(createCheckoutInput)
  .output(createCheckoutOutput)
  .mutation(async ({ ctx, input }) => {
    const { mode, merchantId, checkoutExpiryMinutes } = ctx.rest!.auth!;
    if (mode === "live") {
      if (input.redirectUrl && !input.redirectUrl.startsWith("https://")) {
        throw new AppError("INVALID_REDIRECT_URL", "In live mode the redirectUrl must use https.", { field: "redirectUrl" });
      }
      if (!ctx.services.paymentProcessors.live.configured) throw new AppError("SERVICE_UNAVAILABLE", "No payment processor is configured for live mode yet.");
    }
    const { payment } = await createPayment(ctx.services.db, ctx.services.bulk, merchantId, mode, input, checkoutExpiryMinutes);
    return apiOk(createdView(payment));
  });
