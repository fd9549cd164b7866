import { apiOk } from "@/server/rest/envelope";
import { createRefund, getRefund, listPaymentRefunds } from "@/server/services/refunds/refunds";
import { merchantProcedure } from "@/server/rest/trpc";
import {
  createRefundInput,
  createRefundMeta,
  createRefundOutput,
  getRefundInput,
  getRefundMeta,
  getRefundOutput,
  listRefundsInput,
  listRefundsMeta,
  listRefundsOutput,
} from "@/server/api/refunds/refund.schema";

export const createRefundProcedure = merchantProcedure
  .meta(createRefundMeta)
  .input(createRefundInput)
  .output(createRefundOutput)
  .mutation(async ({ ctx, input }) => {
    const { paymentId, ...body } = input;
    return apiOk(await createRefund(ctx.services.db, ctx.services.paymentProcessors[ctx.auth.mode], ctx.auth, paymentId, body));
  });

export const listRefundsProcedure = merchantProcedure
  .meta(listRefundsMeta)
  .input(listRefundsInput)
  .output(listRefundsOutput)
  .query(async ({ ctx, input }) => apiOk({ items: await listPaymentRefunds(ctx.services.db, ctx.auth.merchantId, ctx.auth.mode, input.paymentId) }));

export const getRefundProcedure = merchantProcedure
  .meta(getRefundMeta)
  .input(getRefundInput)
  .output(getRefundOutput)
  .query(async ({ ctx, input }) => apiOk(await getRefund(ctx.services.db, ctx.auth.merchantId, ctx.auth.mode, input.refundId)));
