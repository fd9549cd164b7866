import {
  WEBHOOK_MAX_ENDPOINTS,
  webhookCreateInput,
  webhookDeliveriesInput,
  webhookEndpointInput,
  webhookResendInput,
  webhookUpdateInput,
} from "@/lib/schemas/webhooks";
import { listDeliveries, resendDelivery } from "@/server/services/webhooks/deliveries";
import { createEndpoint, deleteEndpoint, listEndpoints, sendTestEvent, updateEndpoint } from "@/server/services/webhooks/endpoints";
import { modeProcedure } from "@/server/trpc/dashboard-procedures";
import { router } from "@/server/trpc/init";

export const webhooksRouter = router({
  /** The mode's endpoints with their last delivery and 7-day delivery counts. */
  list: modeProcedure.query(async ({ ctx }) => ({
    endpoints: await listEndpoints(ctx.services.db, ctx.merchantId, ctx.mode),
    maxEndpoints: WEBHOOK_MAX_ENDPOINTS,
  })),

  create: modeProcedure.input(webhookCreateInput).mutation(({ ctx, input }) => createEndpoint(ctx.services.db, ctx.merchantId, ctx.mode, input)),

  /** Changes apply to events emitted from now on; deliveries already made keep their URL. */
  update: modeProcedure.input(webhookUpdateInput).mutation(({ ctx, input }) => updateEndpoint(ctx.services.db, ctx.merchantId, ctx.mode, input)),

  /** Removes the endpoint and stops its pending retries; its delivery history stays. */
  delete: modeProcedure.input(webhookEndpointInput).mutation(({ ctx, input }) => deleteEndpoint(ctx.services.db, ctx.merchantId, ctx.mode, input.endpointId)),

  /** Deliveries newest first, optionally of one endpoint or one status, with every attempt. */
  deliveries: modeProcedure.input(webhookDeliveriesInput).query(({ ctx, input }) => listDeliveries(ctx.services.db, ctx.merchantId, ctx.mode, input)),

  resend: modeProcedure.input(webhookResendInput).mutation(({ ctx, input }) => resendDelivery(ctx.services.db, ctx.merchantId, ctx.mode, input.deliveryId)),

  sendTest: modeProcedure.input(webhookEndpointInput).mutation(({ ctx, input }) => sendTestEvent(ctx.services.db, ctx.merchantId, ctx.mode, input.endpointId)),
});
