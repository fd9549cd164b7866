import { z } from "zod";
import { batchStatusData } from "@/lib/schemas/api-objects";
import { batchIdField, NOUN, PATH, TAG } from "@/server/api/batches/batch.schema";
import { v1Envelope } from "@/server/rest/envelope";
import type { RestOperationMeta } from "@/server/rest/meta";
import type { BatchKind } from "@/server/services/batches/batches";

export { batchStatusData };

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
