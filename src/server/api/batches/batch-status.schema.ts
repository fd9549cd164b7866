import { z } from "zod";
import { BATCH_STATUSES } from "@/lib/schemas/batches";
import { batchIdField, NOUN, PATH, TAG } from "@/server/api/batches/batch.schema";
import { v1Envelope } from "@/server/rest/envelope";
import type { RestOperationMeta } from "@/server/rest/meta";
import type { BatchKind } from "@/server/services/batches/batches";

export const batchStatusData = z
  .object({
    batch_id: z.string(),
    status: z.enum(BATCH_STATUSES),
    total: z.number().int().meta({ description: "Every item submitted." }),
    accepted: z.number().int(),
    rejected: z.number().int().meta({ description: "Items that failed validation; they count as processed and failed from the start." }),
    processed: z.number().int(),
    succeeded: z.number().int().meta({ description: "Items the source answered (any outcome, an INVALID PAN included)." }),
    failed: z.number().int().meta({ description: "Rejected items and items that ended in an error." }),
    client_batch_id: z.string().nullable(),
    created_at: z.string(),
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
  })
  .meta({ id: "BatchStatus" });

export const batchStatusInput = z.object({ batch_id: batchIdField });

export const batchStatusOutput = v1Envelope(batchStatusData);

function batchStatusMeta(kind: BatchKind) {
  return {
    openapi: {
      method: "GET",
      path: `${PATH[kind]}/{batch_id}`,
      tags: [TAG[kind]],
      summary: `Get a ${NOUN[kind]} batch's progress`,
      description: "Counts move as items finish. At the end processed = total and succeeded + failed = total.",
    },
    rest: { auth: "bearer", errors: ["BATCH_NOT_FOUND"] },
  } satisfies RestOperationMeta;
}

export const batchStatusMetas: Record<BatchKind, RestOperationMeta> = { PAN: batchStatusMeta("PAN"), EPFO: batchStatusMeta("EPFO") };
