import { z } from "zod";
import { createSchema } from "zod-openapi";
import { REFERENCE_MAX_CHARS } from "@/server/api/batches/batch-items";
import { epfoLookupFields, epfoVerificationData, exactlyOneLookup } from "@/server/api/employment/verify-epfo.schema";
import { verifyPanInput } from "@/server/api/identity/verify-pan.schema";
import { pathIdField } from "@/server/api/path-id";
import { v1Envelope } from "@/server/rest/envelope";
import { BATCH_BODY_LIMIT } from "@/server/rest/routes";
import { BATCH_MAX_ITEMS, type BatchKind } from "@/server/services/batches/batches";
import { panVerificationData } from "@/server/services/identity/verify-pan";
import type { RestOperationMeta } from "@/server/rest/meta";

export const RESULTS_MAX_LIMIT = 1000;
export const RESULTS_DEFAULT_LIMIT = 100;

const itemsField = z
  .array(z.unknown())
  .min(1, "must hold at least one item")
  // Over the cap is its own code (B4), not a plain validation error.
  .check((ctx) => {
    if (ctx.value.length > BATCH_MAX_ITEMS) {
      ctx.issues.push({ code: "custom", input: ctx.value, message: `must hold at most ${BATCH_MAX_ITEMS} items`, params: { code: "BATCH_TOO_LARGE" } });
    }
  });

const referenceIdField = z
  .string()
  .max(REFERENCE_MAX_CHARS)
  .nullish()
  .meta({ description: `Your reference for the item (at most ${REFERENCE_MAX_CHARS} characters), echoed in its result.` });

/**
 * What an item should be, for the document: the single call's body and a reference_id. Items are
 * read as they come (validateBatchItems) so that a bad one is rejected alone, not the batch.
 */
const documentedItem: Record<BatchKind, z.ZodType> = {
  PAN: verifyPanInput.extend({ reference_id: referenceIdField }),
  EPFO: exactlyOneLookup(z.object({ ...epfoLookupFields, reference_id: referenceIdField })),
};

function documentedItems(kind: BatchKind) {
  return { items: createSchema(documentedItem[kind], { io: "input" }).schema, maxItems: BATCH_MAX_ITEMS };
}

const itemDescriptions: Record<BatchKind, string> = {
  PAN: "Up to 10,000 items `{pan, name?, reference_id?}`, validated like single calls; an invalid item is rejected on its own (counted in `rejected`, reported in the results) and never fails the batch.",
  EPFO: "Up to 10,000 items `{uan?, pf_number?, reference_id?}` (exactly one of uan or pf_number), validated like single calls; an invalid item is rejected on its own and never fails the batch.",
};

export function batchCreateInput(kind: BatchKind) {
  return z.object({
    items: itemsField.meta({ description: itemDescriptions[kind], override: documentedItems(kind) }),
    webhook_url: z.string().max(2048, "must be at most 2048 characters").nullish().meta({
      description:
        "Where the completion event is also sent, signed like every webhook. Live mode: https and a public host. Sandbox: loopback only where the server allows it for endpoints.",
    }),
    client_batch_id: z.string().trim().min(1).max(100, "must be at most 100 characters").nullish().meta({ description: "Your own reference, echoed back." }),
  });
}

export const batchSummaryData = z
  .object({
    batch_id: z.string().meta({ example: "batch_8fK2mQ7xLp3Rt9Za" }),
    status: z.literal("QUEUED"),
    total: z.number().int(),
    accepted: z.number().int(),
    rejected: z.number().int(),
    created_at: z.string(),
  })
  .meta({ id: "BatchSummary" });

export const batchStatusData = z
  .object({
    batch_id: z.string(),
    status: z.enum(["QUEUED", "PROCESSING", "COMPLETED", "FAILED"]),
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

const batchIdField = pathIdField(64, "BATCH_NOT_FOUND").meta({ description: "The batch_id the POST answered.", example: "batch_8fK2mQ7xLp3Rt9Za" });

export const batchStatusInput = z.object({ batch_id: batchIdField });

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
          status: z.enum(["PENDING", "SUCCEEDED", "FAILED"]).meta({ description: "PENDING (result and error both null) until the item has run." }),
        }),
      ),
      next_cursor: z.string().nullable().meta({ description: "Pass as cursor for the next page; null on the last page." }),
    })
    .meta({ id: kind === "PAN" ? "PanBatchResults" : "EpfoBatchResults" });
}

const PATH: Record<BatchKind, `/${string}`> = { PAN: "/v1/identity/pan/batch", EPFO: "/v1/employment/epfo/batch" };
const TAG: Record<BatchKind, string> = { PAN: "Identity", EPFO: "Employment" };
const NOUN: Record<BatchKind, string> = { PAN: "PAN", EPFO: "EPFO" };

export function batchMetas(kind: BatchKind) {
  const event = kind === "PAN" ? "pan.batch.completed" : "epfo.batch.completed";
  return {
    create: {
      openapi: {
        method: "POST",
        path: PATH[kind],
        tags: [TAG[kind]],
        summary: `Submit a ${NOUN[kind]} batch`,
        description: `Queues up to 10,000 ${NOUN[kind]} checks and answers 202 at once. Poll the batch, page through its results, or wait for the \`${event}\` webhook (sent to webhook_url and to endpoints subscribed to it). Bodies up to 8 MiB. In sandbox a merchant may submit 100,000 items (SANDBOX_BATCH_ITEMS_PER_DAY) in any 24 hours; a batch past that answers 429 RATE_LIMITED with Retry-After.`,
        successDescription: "Accepted: the batch is queued.",
      },
      rest: {
        auth: "bearer",
        errors: ["VALIDATION_ERROR", "BATCH_TOO_LARGE", "PAYLOAD_TOO_LARGE"],
        successStatus: 202,
        bodyLimit: BATCH_BODY_LIMIT,
      },
    },
    status: {
      openapi: {
        method: "GET",
        path: `${PATH[kind]}/{batch_id}`,
        tags: [TAG[kind]],
        summary: `Get a ${NOUN[kind]} batch's progress`,
        description: "Counts move as items finish. At the end processed = total and succeeded + failed = total.",
      },
      rest: { auth: "bearer", errors: ["BATCH_NOT_FOUND"] },
    },
    results: {
      openapi: {
        method: "GET",
        path: `${PATH[kind]}/{batch_id}/results`,
        tags: [TAG[kind]],
        summary: `Page through a ${NOUN[kind]} batch's results`,
        description: "Every submitted item once, in index order, rejected items included. Items still running are listed as PENDING.",
      },
      rest: { auth: "bearer", errors: ["VALIDATION_ERROR", "BATCH_NOT_FOUND"] },
    },
  } satisfies Record<string, RestOperationMeta>;
}

export const batchSummaryOutput = v1Envelope(batchSummaryData);
export const batchStatusOutput = v1Envelope(batchStatusData);
export const batchResultsOutput = (kind: BatchKind) => v1Envelope(batchResultsData(kind));
