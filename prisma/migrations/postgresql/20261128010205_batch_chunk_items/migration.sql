-- CreateTable
CREATE TABLE "BatchChunkItems" (
    "chunkId" TEXT NOT NULL,
    "items" TEXT NOT NULL,

    CONSTRAINT "BatchChunkItems_pkey" PRIMARY KEY ("chunkId")
);

-- The stored chunks' items move to their own rows.
INSERT INTO "BatchChunkItems" ("chunkId", "items") SELECT "id", "items" FROM "BatchChunk";

-- AlterTable
ALTER TABLE "BatchChunk" DROP COLUMN "items";

-- AddForeignKey
ALTER TABLE "BatchChunkItems" ADD CONSTRAINT "BatchChunkItems_chunkId_fkey" FOREIGN KEY ("chunkId") REFERENCES "BatchChunk"("id") ON DELETE CASCADE ON UPDATE CASCADE;
