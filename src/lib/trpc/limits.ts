/** Most calls in one tRPC batch request; the server refuses larger batches and the client never sends them. */
export const TRPC_MAX_BATCH = 10;
