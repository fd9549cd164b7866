-- CreateTable
CREATE TABLE "BatchChunkItems" (
    "chunkId" TEXT NOT NULL PRIMARY KEY,
    "items" TEXT NOT NULL,
    CONSTRAINT "BatchChunkItems_chunkId_fkey" FOREIGN KEY ("chunkId") REFERENCES "BatchChunk" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- The stored chunks' items move to their own rows.
INSERT INTO "BatchChunkItems" ("chunkId", "items") SELECT "id", "items" FROM "BatchChunk";

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_BatchChunk" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "batchId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'PENDING',
    "results" TEXT,
    "availableAt" DATETIME NOT NULL,
    "leaseToken" TEXT,
    "leaseUntil" DATETIME,
    "passes" INTEGER NOT NULL DEFAULT 0,
    "retryingSince" DATETIME,
    "succeeded" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "completedAt" DATETIME,
    CONSTRAINT "BatchChunk_batchId_fkey" FOREIGN KEY ("batchId") REFERENCES "Batch" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_BatchChunk" ("availableAt", "batchId", "completedAt", "failed", "id", "leaseToken", "leaseUntil", "passes", "results", "retryingSince", "seq", "status", "succeeded") SELECT "availableAt", "batchId", "completedAt", "failed", "id", "leaseToken", "leaseUntil", "passes", "results", "retryingSince", "seq", "status", "succeeded" FROM "BatchChunk";
DROP TABLE "BatchChunk";
ALTER TABLE "new_BatchChunk" RENAME TO "BatchChunk";
CREATE INDEX "BatchChunk_batchId_status_availableAt_idx" ON "BatchChunk"("batchId", "status", "availableAt");
CREATE UNIQUE INDEX "BatchChunk_batchId_seq_key" ON "BatchChunk"("batchId", "seq");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
