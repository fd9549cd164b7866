import type { z } from "zod";
import { batchResultsData, batchResultsInput, batchResultsMetas, batchResultsOutput, RESULTS_DEFAULT_LIMIT } from "@/server/api/batches/batch-results.schema";
import { v1Ok } from "@/server/rest/envelope";
import { restProcedure } from "@/server/rest/trpc";
import { getBatch, listBatchResults, type BatchKind } from "@/server/services/batches/batches";
import { decodeResultsCursor, encodeResultsCursor } from "@/server/services/batches/cursor";

/** GET a page of a batch's results, in index order, optionally only the items in one state. */
function batchResultsProcedure(kind: BatchKind) {
  return restProcedure(batchResultsMetas[kind], {
    input: batchResultsInput,
    output: batchResultsOutput(kind),
    resolve: async ({ ctx, input }) => {
      const hashKey = ctx.services.config.secrets.hashKey;
      // An unknown or foreign batch is 404 whatever the cursor says.
      await getBatch(ctx.services.db, ctx.auth.merchantId, ctx.auth.mode, kind, input.batch_id);
      const from = input.cursor ? decodeResultsCursor(hashKey, input.batch_id, input.cursor, input.status) : 0;
      const scope = { merchantId: ctx.auth.merchantId, mode: ctx.auth.mode, kind, batchId: input.batch_id };
      const page = await listBatchResults(ctx.services.db, scope, from, input.limit ?? RESULTS_DEFAULT_LIMIT, input.status);
      // Results are the stored single-call data, checked against the kind's schema on the way out.
      const items = page.items as z.input<ReturnType<typeof batchResultsData>>["items"];
      return v1Ok({ items, next_cursor: page.next === null ? null : encodeResultsCursor(hashKey, input.batch_id, page.next, input.status) });
    },
  });
}

export const panBatchResultsProcedure = batchResultsProcedure("PAN");
export const epfoBatchResultsProcedure = batchResultsProcedure("EPFO");
