import { batchCreateInput, batchesListInput, batchGetInput, batchPreviewInput, batchResultsInput } from "@/lib/schemas/batches";
import { validateBatchItems } from "@/server/api/batches/batch-items";
import { newId } from "@/server/lib/ids";
import { createBatch } from "@/server/services/batches/batches";
import { consentFor } from "@/server/services/consent/consent";
import { standingConsentOf } from "@/server/services/merchants/consent-settings";
import { getDashboardBatch, listDashboardBatchResults, listDashboardBatches } from "@/server/services/batches/dashboard";
import { modeProcedure } from "@/server/trpc/dashboard-procedures";
import { router } from "@/server/trpc/init";

/** Rejected rows a preview lists one by one; past this it gives the count (every row is in the batch's results anyway). */
export const PREVIEW_MAX_REJECTIONS = 1000;

export const batchesRouter = router({
  /** The mode's PAN and EPFO batches, newest first, with their counts; optionally of one kind. */
  list: modeProcedure.input(batchesListInput).query(({ ctx, input }) => listDashboardBatches(ctx.services.db, ctx.merchantId, ctx.mode, input)),

  /** BATCH_NOT_FOUND (NOT_FOUND) for another merchant's or mode's batch, as for an unknown id. */
  detail: modeProcedure
    .input(batchGetInput)
    .query(({ ctx, input }) => getDashboardBatch(ctx.services.db, ctx.merchantId, ctx.mode, input.batchId, ctx.services.config.batchRetryBudgetMs)),

  /** A page of a batch's items with their results or errors, in index order; optionally only the failed (or succeeded, or pending) ones. */
  results: modeProcedure.input(batchResultsInput).query(({ ctx, input }) => listDashboardBatchResults(ctx.services.db, ctx.merchantId, ctx.mode, input)),

  /**
   * What a batch of these rows would accept and reject, validated exactly as the API validates each
   * item; nothing is stored. A mutation only because the rows travel in the body.
   */
  preview: modeProcedure.input(batchPreviewInput).mutation(({ input }) => {
    const items = validateBatchItems(input.kind, input.items);
    const rejected = items.flatMap((item, index) =>
      item.error ? [{ index, reference_id: item.reference_id, code: item.error.code, message: item.error.message }] : [],
    );
    return {
      total: items.length,
      accepted: items.length - rejected.length,
      rejected: rejected.length,
      rejections: rejected.slice(0, PREVIEW_MAX_REJECTIONS),
    };
  }),

  /** Queues a batch as POST /v1/{kind}/batch does (rejected rows are kept as failed items), submitted from the dashboard. */
  create: modeProcedure.input(batchCreateInput).mutation(async ({ ctx, input }) => {
    // A live batch without consent or purpose is refused whole, as the API's is.
    const consent = consentFor(ctx.mode, input, await standingConsentOf(ctx.services.db, ctx.merchantId));
    return createBatch(
      ctx.services.db,
      {
        merchantId: ctx.merchantId,
        mode: ctx.mode,
        kind: input.kind,
        requestId: newId("req"),
        apiKeyId: null,
        webhookUrl: input.webhookUrl || null,
        webhookUrlField: "webhookUrl",
        clientBatchId: input.clientBatchId || null,
        consent,
        items: validateBatchItems(input.kind, input.items),
      },
      { sandboxItemsPerDay: ctx.services.config.sandboxBatchItemsPerDay },
    );
  }),
});
