/** Batches as their readers see them: one still being stored (src/server/db/new-batch.ts) is hidden. */
import { CREATING_STATUS } from "@/server/db/new-batch";

export { CREATING_STATUS, storeBatchInPieces, type BatchAdmission, type NewBatchRows, type NewChunkRow as ChunkRows } from "@/server/db/new-batch";

/** What a reader of batches asks for: every batch but one still being stored. */
export const STORED_BATCHES = { status: { not: CREATING_STATUS } };

/**
 * A batch still CREATING this long after it began was left by a creation that died with its process
 * (a live one takes seconds): the retention purge deletes it.
 */
const ABANDONED_AFTER_MS = 60 * 60 * 1000;

/** The batches left behind by creations that never finished. */
export function abandonedCreations(now: Date) {
  return { status: CREATING_STATUS, createdAt: { lt: new Date(now.getTime() - ABANDONED_AFTER_MS) } };
}
