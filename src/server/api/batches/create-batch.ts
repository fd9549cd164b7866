import { validateBatchItems } from "@/server/api/batches/batch-items";
import { batchCreateInput, batchSummaryOutput, createBatchMetas } from "@/server/api/batches/create-batch.schema";
import { v1Ok } from "@/server/rest/envelope";
import { consentFor } from "@/server/services/consent/consent";
import { restProcedure } from "@/server/rest/trpc";
import { createBatch, type BatchKind } from "@/server/services/batches/batches";

/** POST a batch: the two kinds differ only in their items. */
function createBatchProcedure(kind: BatchKind) {
  return restProcedure(createBatchMetas[kind], {
    input: batchCreateInput(kind),
    output: batchSummaryOutput,
    resolve: async ({ ctx, input }) => {
      const { merchantId, mode, apiKeyId } = ctx.auth;
      // A live batch without consent or purpose is refused whole, before anything is stored.
      const consent = consentFor(mode, input, ctx.auth.consent);
      const summary = await createBatch(
        ctx.services.db,
        {
          merchantId,
          mode,
          kind,
          requestId: ctx.requestId,
          apiKeyId,
          webhookUrl: input.webhook_url ?? null,
          clientBatchId: input.client_batch_id ?? null,
          consent,
          items: ctx.preparedBatch ?? validateBatchItems(kind, input.items),
        },
        { sandboxItemsPerDay: ctx.services.config.sandboxBatchItemsPerDay },
        // Sandbox chunks start on this process's chunk threads at once (if its job runners work batches).
        { passes: ctx.services.batchChunkThread.early, retryBudgetMs: ctx.services.config.batchRetryBudgetMs },
      );
      return v1Ok({
        batch_id: summary.batch_id,
        status: "QUEUED" as const,
        total: summary.total,
        accepted: summary.accepted,
        rejected: summary.rejected,
        created_at: summary.created_at,
      });
    },
  });
}

export const createPanBatchProcedure = createBatchProcedure("PAN");
export const createEpfoBatchProcedure = createBatchProcedure("EPFO");
