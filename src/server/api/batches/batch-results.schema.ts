import { z } from "zod";
import { batchIdField, NOUN, PATH, TAG } from "@/server/api/batches/batch.schema";
import { epfoVerificationData } from "@/server/api/employment/verify-epfo.schema";
import { v1Envelope } from "@/server/rest/envelope";
import type { RestOperationMeta } from "@/server/rest/meta";
import { BATCH_ITEM_STATUSES } from "@/lib/schemas/batches";
import type { BatchKind } from "@/server/services/batches/batches";
import { panVerificationData } from "@/server/services/identity/verify-pan";

export const RESULTS_MAX_LIMIT = 1000;
export const RESULTS_DEFAULT_LIMIT = 100;

// Query parameters carry their meta inside `.optional()`: the generator unwraps optional ones.
export const batchResultsInput = z.object({
  batch_id: batchIdField,
  cursor: z.string().max(200).meta({ description: "next_cursor of the previous page; omit for the first page." }).optional(),
  limit: z
    .string()
    .regex(/^\d{1,7}$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(1, "must be at least 1").max(RESULTS_MAX_LIMIT, `must be at most ${RESULTS_MAX_LIMIT}`))
    .meta({
      description: `Items per page, 1–${RESULTS_MAX_LIMIT} (default ${RESULTS_DEFAULT_LIMIT}).`,
      // Read from the query string's text, documented as the integer it must be.
      override: ({ jsonSchema }) => {
        delete jsonSchema.pattern;
        Object.assign(jsonSchema, { type: "integer", minimum: 1, maximum: RESULTS_MAX_LIMIT });
      },
    })
    .optional(),
  status: z
    .enum(BATCH_ITEM_STATUSES)
    .meta({
      description:
        "Only items in this state: SUCCEEDED (the source answered, whatever the outcome), FAILED (rejected or ended in an error) or PENDING (not run yet). " +
        "Pages stay in index order; pass the same status with each next_cursor.",
    })
    .optional(),
});

const itemError = z.object({ code: z.string(), message: z.string() });

export function batchResultsData(kind: BatchKind) {
  return z
    .object({
      items: z.array(
        z.object({
          index: z.number().int().meta({ description: "0-based position in the submitted items." }),
          reference_id: z.string().nullable(),
          input: z.unknown().meta({ description: "The item as validated (as submitted, for a rejected item)." }),
          result: (kind === "PAN" ? panVerificationData : epfoVerificationData)
            .nullable()
            .meta({ description: "Exactly the single call's data; null on error." }),
          error: itemError.nullable().meta({ description: "The code and message the single call would give; null on success." }),
          status: z.enum(BATCH_ITEM_STATUSES).meta({
            description:
              "Whether the item has run: PENDING (result and error both null) until it has, then SUCCEEDED (the source answered; " +
              "the verification outcome, e.g. an INVALID PAN, is in result) or FAILED (error says why).",
          }),
        }),
      ),
      next_cursor: z.string().nullable().meta({ description: "Pass as cursor for the next page; null on the last page." }),
    })
    .meta({ id: kind === "PAN" ? "PanBatchResults" : "EpfoBatchResults" });
}

export const batchResultsOutput = (kind: BatchKind) => v1Envelope(batchResultsData(kind));

function batchResultsMeta(kind: BatchKind) {
  return {
    openapi: {
      method: "GET",
      path: `${PATH[kind]}/{batch_id}/results`,
      tags: [TAG[kind]],
      summary: `Page through a ${NOUN[kind]} batch's results`,
      description:
        "Every submitted item once, in index order, rejected items included. Items still running are listed as PENDING. " +
        "With status, only the items in that state (e.g. status=FAILED for the ones to look at).",
    },
    rest: { auth: "bearer", errors: ["VALIDATION_ERROR", "BATCH_NOT_FOUND"] },
  } satisfies RestOperationMeta;
}

export const batchResultsMetas: Record<BatchKind, RestOperationMeta> = { PAN: batchResultsMeta("PAN"), EPFO: batchResultsMeta("EPFO") };
