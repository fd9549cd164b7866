-- AlterTable
ALTER TABLE "BatchChunk" ADD COLUMN "bulk" TEXT;
