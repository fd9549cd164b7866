// Browser-safe: the API's numeric rules, each stated once. Validation, error messages, the OpenAPI
// descriptions and the dashboard's pages interpolate these, so changing one changes every sentence.

/** Payment amounts (contract B5): 1.00 to 100000.00 rupees. */
export const MIN_PAYMENT_AMOUNT_PAISE = 100;
export const MAX_PAYMENT_AMOUNT_PAISE = 100_000 * 100;

/** A SUCCESS payment can be refunded for this many days after it was paid (contract B11). */
export const REFUND_WINDOW_DAYS = 180;
export const REFUND_WINDOW_MS = REFUND_WINDOW_DAYS * 86_400_000;
/** Characters of a refund's reason (contract B11). */
export const REFUND_REASON_MAX = 255;

/** Items per batch, from the API or the dashboard (contract B4). */
export const BATCH_MAX_ITEMS = 10_000;
/** Largest request body of a batch: POST /v1/{kind}/batch and the dashboard's upload (contract B1). */
export const BATCH_BODY_MAX_BYTES = 8 * 1024 * 1024;
/** Largest request body of every other call (contract B1). */
export const SINGLE_BODY_MAX_BYTES = 1024 * 1024;

/** How long a background job (and a batch chunk) stays claimed by a worker that stopped answering (default). */
export const DEFAULT_JOB_LEASE_MS = 30_000;
/** Transient source errors are retried for at most this long per batch item, whatever Retry-After says (contract B4). */
export const MAX_BATCH_RETRY_BUDGET_MS = 30_000;
/** How long a live PAN batch reads a bulk request back from the vendor, by default, before its items left go to single calls. */
export const DEFAULT_BULK_POLL_LIMIT_MS = 10 * 60_000;

/** 10000 → "10,000"; 8388608 bytes → "8 MiB": the figures as sentences show them. */
export const countText = (n: number) => n.toLocaleString("en-IN");
export const mebibytesText = (bytes: number) => `${bytes / (1024 * 1024)} MiB`;
