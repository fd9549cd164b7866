import type { z } from "zod";
import { validateBatchItems } from "@/server/api/batches/batch-items";
import {
  batchCreateInput,
  batchMetas,
  batchResultsData,
  batchResultsInput,
  batchResultsOutput,
  batchStatusInput,
  batchStatusOutput,
  batchSummaryOutput,
  RESULTS_DEFAULT_LIMIT,
} from "@/server/api/batches/batch.schema";
import { AppError } from "@/server/errors";
import { v1Ok } from "@/server/rest/envelope";
import { createBatch, getBatch, listBatchResults, type BatchKind } from "@/server/services/batches/batches";
import { decodeResultsCursor, encodeResultsCursor } from "@/server/services/batches/cursor";
import { webhookUrlProblem } from "@/server/services/webhooks/ssrf";
import { bearerProcedure } from "@/server/rest/trpc";

/** POST, GET status and GET results for one batch kind: the two kinds differ only in their items. */
function batchProcedures(kind: BatchKind) {
  const meta = batchMetas(kind);
  return {
    meta,
    create: bearerProcedure
      .meta(meta.create)
      .input(batchCreateInput(kind))
      .output(batchSummaryOutput)
      .mutation(async ({ ctx, input }) => {
        const { merchantId, mode, apiKeyId } = ctx.auth;
        const webhookUrl = input.webhook_url ?? null;
        if (webhookUrl) {
          const problem = webhookUrlProblem(webhookUrl, mode);
          if (problem) throw new AppError("VALIDATION_ERROR", `webhook_url: ${problem}.`, { field: "webhook_url" });
        }
        const summary = await createBatch(
          ctx.services.db,
          {
            merchantId,
            mode,
            kind,
            requestId: ctx.requestId,
            apiKeyId,
            webhookUrl,
            clientBatchId: input.client_batch_id ?? null,
            items: validateBatchItems(kind, input.items),
          },
          { sandboxItemsPerDay: ctx.services.config.sandboxBatchItemsPerDay },
        );
        return v1Ok({
          batch_id: summary.batch_id,
          status: "QUEUED" as const,
          total: summary.total,
          accepted: summary.accepted,
          rejected: summary.rejected,
          created_at: summary.created_at,
        });
      }),
    status: bearerProcedure
      .meta(meta.status)
      .input(batchStatusInput)
      .output(batchStatusOutput)
      .query(async ({ ctx, input }) => v1Ok(await getBatch(ctx.services.db, ctx.auth.merchantId, ctx.auth.mode, kind, input.batch_id))),
    results: bearerProcedure
      .meta(meta.results)
      .input(batchResultsInput)
      .output(batchResultsOutput(kind))
      .query(async ({ ctx, input }) => {
        const hashKey = ctx.services.config.secrets.hashKey;
        // An unknown or foreign batch is 404 whatever the cursor says.
        await getBatch(ctx.services.db, ctx.auth.merchantId, ctx.auth.mode, kind, input.batch_id);
        const from = input.cursor ? decodeResultsCursor(hashKey, input.batch_id, input.cursor) : 0;
        const scope = { merchantId: ctx.auth.merchantId, mode: ctx.auth.mode, kind, batchId: input.batch_id };
        const page = await listBatchResults(ctx.services.db, scope, from, input.limit ?? RESULTS_DEFAULT_LIMIT);
        // Results are the stored single-call data, checked against the kind's schema on the way out.
        const items = page.items as z.input<ReturnType<typeof batchResultsData>>["items"];
        return v1Ok({ items, next_cursor: page.next === null ? null : encodeResultsCursor(hashKey, input.batch_id, page.next) });
      }),
  };
}

export const panBatch = batchProcedures("PAN");
export const epfoBatch = batchProcedures("EPFO");
