import { purposeSchema } from "@/lib/consent";
import { z } from "zod";
import { BATCH_MAX_ITEMS, countText } from "@/lib/limits";
import { idFilterSchema, withPage } from "@/lib/schemas/logs";
import { webhookUrlSchema } from "@/lib/schemas/webhooks";
import { filtersFromQuery, filtersToQuery } from "@/lib/url-filters";

// Browser-safe: the Batches page's upload form and list filter, shared with the batches router.

export const BATCH_KINDS = ["PAN", "EPFO"] as const;
export const batchKindSchema = z.enum(BATCH_KINDS, { error: "Choose PAN or EPFO" });
export type BatchKindValue = z.infer<typeof batchKindSchema>;

/** The batch statuses, for the service, the API and the page. */
export const BATCH_STATUSES = ["QUEUED", "PROCESSING", "COMPLETED", "FAILED"] as const;
export type BatchStatusValue = (typeof BATCH_STATUSES)[number];
export const BATCH_STATUS_LABELS: Record<BatchStatusValue, string> = {
  QUEUED: "Queued",
  PROCESSING: "Processing",
  COMPLETED: "Completed",
  FAILED: "Failed",
};
/** Statuses a batch still moves out of: the page keeps polling while one is shown. */
export const isBatchRunning = (status: string) => status === "QUEUED" || status === "PROCESSING";

/** An item's state in a batch's results: PENDING until it has run, then SUCCEEDED (the source answered) or FAILED (an error). */
export const BATCH_ITEM_STATUSES = ["SUCCEEDED", "FAILED", "PENDING"] as const;
export type BatchItemStatus = (typeof BATCH_ITEM_STATUSES)[number];

/** Items per batch, from the API or the dashboard. */
export { BATCH_MAX_ITEMS } from "@/lib/limits";

/** Results per page on the batch detail. */
export const BATCH_RESULTS_PAGE_SIZE = 50;

export const batchIdSchema = idFilterSchema("batch id", 64);

export const batchFiltersSchema = z.object({ kind: batchKindSchema.optional() });
export type BatchFilters = z.infer<typeof batchFiltersSchema>;

export const batchesListInput = withPage(batchFiltersSchema.shape);

export const batchGetInput = z.object({ batchId: batchIdSchema });

/** A batch results search: part of a reference id, PAN, UAN or PF number. */
export const batchResultsSearchSchema = z.string().trim().min(1, "Enter a reference id, PAN, UAN or PF number").max(100, "At most 100 characters");

export const batchResultsInput = z.object({
  batchId: batchIdSchema,
  /** 0-based index of the first item of the page. */
  from: z.number().int().min(0).max(BATCH_MAX_ITEMS).default(0),
  limit: z.number().int().min(1).max(100).default(BATCH_RESULTS_PAGE_SIZE),
  /** Only items in this state (the page's Succeeded / Failed / Pending views). */
  status: z.enum(BATCH_ITEM_STATUSES).optional(),
  /** Only items whose reference id, PAN, UAN or PF number contains this text. */
  search: batchResultsSearchSchema.optional(),
});

/**
 * The rows of an uploaded file as the page read them: objects of strings. Each is validated on the
 * server like a single API call, so a bad row is rejected on its own instead of failing the upload.
 */
const batchItemsField = z
  .array(z.unknown())
  .min(1, "The file has no rows to verify")
  .max(BATCH_MAX_ITEMS, `A batch takes at most ${countText(BATCH_MAX_ITEMS)} rows: split the file`);

export const batchPreviewInput = z.object({ kind: batchKindSchema, items: batchItemsField });

export const clientBatchIdSchema = z.string().trim().max(100, "Keep your reference to 100 characters or fewer");

export const batchCreateInput = z.object({
  kind: batchKindSchema,
  items: batchItemsField,
  /** Also sent the completion event, like the API's webhook_url. Empty: only subscribed endpoints. */
  webhookUrl: webhookUrlSchema.optional(),
  /** The merchant's own reference (the API's client_batch_id). */
  clientBatchId: clientBatchIdSchema.optional(),
  /** As the API's consent and purpose (C6): a live batch needs them, here or as the merchant's standing settings. */
  consent: z.boolean().optional(),
  purpose: z.union([purposeSchema, z.literal("").transform(() => undefined)]).optional(),
});

const BATCH_QUERY_NAMES = { kind: "kind" } as const;

/** The list's filter as it appears in the page's URL query. */
export const batchFiltersFromQuery = (q: { get(name: string): string | null }) => filtersFromQuery<BatchFilters>(batchFiltersSchema, BATCH_QUERY_NAMES, q);
export const batchFiltersToQuery = (f: BatchFilters) => filtersToQuery(f, BATCH_QUERY_NAMES);
