import { apiOk } from "@/server/rest/envelope";
import { openCheckout } from "@/server/services/payments/payments";
import { restProcedure } from "@/server/rest/trpc";
import { createCheckoutInput, createCheckoutMeta, createCheckoutOutput } from "@/server/api/payments/create-checkout.schema";

export const createCheckoutProcedure = restProcedure(createCheckoutMeta, {
  input: createCheckoutInput,
  output: createCheckoutOutput,
  resolve: async ({ ctx, input }) => {
    const { services, auth } = ctx;
    return apiOk(await openCheckout(services.db, services.bulk, services.paymentProcessors[auth.mode], auth, input));
  },
});
