import { z } from "zod";
import { createSchema } from "zod-openapi";
import { BATCH_BODY_MAX_BYTES, BATCH_MAX_ITEMS, countText, mebibytesText } from "@/lib/limits";
import { REFERENCE_MAX_CHARS } from "@/server/api/batches/batch-items";
import { NOUN, PATH, TAG } from "@/server/api/batches/batch.schema";
import { consentFields } from "@/server/api/consent.schema";
import { epfoLookupFields, exactlyOneLookup } from "@/server/api/employment/verify-epfo.schema";
import { panLookupInput } from "@/server/api/identity/verify-pan.schema";
import { v1Envelope } from "@/server/rest/envelope";
import type { RestOperationMeta } from "@/server/rest/meta";
import type { BatchKind } from "@/server/services/batches/batches";

const itemsField = z
  .array(z.unknown())
  .min(1, "must hold at least one item")
  // Over the cap is its own code, not a plain validation error.
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
  PAN: panLookupInput.extend({ reference_id: referenceIdField }),
  EPFO: exactlyOneLookup(z.object({ ...epfoLookupFields, reference_id: referenceIdField })),
};

function documentedItems(kind: BatchKind) {
  return { items: createSchema(documentedItem[kind], { io: "input" }).schema, maxItems: BATCH_MAX_ITEMS };
}

const itemDescriptions: Record<BatchKind, string> = {
  PAN: `Up to ${countText(BATCH_MAX_ITEMS)} items \`{pan, name?, reference_id?}\`, validated like single calls; an invalid item is rejected on its own (counted in \`rejected\`, reported in the results) and never fails the batch.`,
  EPFO: `Up to ${countText(BATCH_MAX_ITEMS)} items \`{uan?, pf_number?, reference_id?}\` (exactly one of uan or pf_number), validated like single calls; an invalid item is rejected on its own and never fails the batch.`,
};

export function batchCreateInput(kind: BatchKind) {
  return z.object({
    items: itemsField.meta({ description: itemDescriptions[kind], override: documentedItems(kind) }),
    webhook_url: z.string().max(2048, "must be at most 2048 characters").nullish().meta({
      format: "uri",
      description:
        "Where the completion event is also sent, signed like every webhook. Live mode: https and a public host. Sandbox: loopback only where the server allows it for endpoints.",
    }),
    client_batch_id: z.string().trim().min(1).max(100, "must be at most 100 characters").nullish().meta({ description: "Your own reference, echoed back." }),
    // One consent and purpose for the whole batch, checked when it is submitted and stored with it.
    ...consentFields,
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

export const batchSummaryOutput = v1Envelope(batchSummaryData);

function createBatchMeta(kind: BatchKind) {
  const event = kind === "PAN" ? "pan.batch.completed" : "epfo.batch.completed";
  return {
    openapi: {
      method: "POST",
      path: PATH[kind],
      tags: [TAG[kind]],
      summary: `Submit a ${NOUN[kind]} batch`,
      description: `Queues up to ${countText(BATCH_MAX_ITEMS)} ${NOUN[kind]} checks and answers 202 at once. Poll the batch, page through its results, or wait for the \`${event}\` webhook (sent to webhook_url and to endpoints subscribed to it). Bodies up to ${mebibytesText(BATCH_BODY_MAX_BYTES)}; while the server has too many large bodies in hand, 503 SERVICE_UNAVAILABLE with Retry-After. In sandbox a merchant may submit 100,000 items (SANDBOX_BATCH_ITEMS_PER_DAY) in any 24 hours; a batch past that answers 429 RATE_LIMITED with Retry-After. A live batch carries one \`consent\` and \`purpose\` for all its items (or relies on the merchant's standing attestation and default purpose), checked at submission: without them the whole batch is refused with 422 CONSENT_REQUIRED; sandbox does not need them.`,
      successDescription: "Accepted: the batch is queued.",
    },
    rest: {
      auth: "bearer",
      errors: ["VALIDATION_ERROR", "BATCH_TOO_LARGE", "PAYLOAD_TOO_LARGE", "CONSENT_REQUIRED", "SERVICE_UNAVAILABLE"],
      successStatus: 202,
      bodyLimit: BATCH_BODY_MAX_BYTES,
      batchKind: kind,
    },
  } satisfies RestOperationMeta;
}

export const createBatchMetas: Record<BatchKind, RestOperationMeta> = { PAN: createBatchMeta("PAN"), EPFO: createBatchMeta("EPFO") };
