import { batchStatusInput, batchStatusMetas, batchStatusOutput } from "@/server/api/batches/batch-status.schema";
import { v1Ok } from "@/server/rest/envelope";
import { restProcedure } from "@/server/rest/trpc";
import { getBatch, type BatchKind } from "@/server/services/batches/batches";

/** GET a batch's progress, under its own kind's path only. */
function batchStatusProcedure(kind: BatchKind) {
  return restProcedure(batchStatusMetas[kind], {
    input: batchStatusInput,
    output: batchStatusOutput,
    resolve: async ({ ctx, input }) => v1Ok(await getBatch(ctx.services.db, ctx.auth.merchantId, ctx.auth.mode, kind, input.batch_id)),
  });
}

export const panBatchStatusProcedure = batchStatusProcedure("PAN");
export const epfoBatchStatusProcedure = batchStatusProcedure("EPFO");
