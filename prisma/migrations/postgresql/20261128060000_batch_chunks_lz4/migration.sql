-- A chunk's items and results are JSON of 100 to 250 KB, compressed when stored: lz4 takes a
-- fraction of the CPU pglz takes (pglz was the largest single cost of a batch's commits). Every
-- packaged PostgreSQL 14 or later is built with lz4.
ALTER TABLE "BatchChunk" ALTER COLUMN "results" SET COMPRESSION lz4;
ALTER TABLE "BatchChunkItems" ALTER COLUMN "items" SET COMPRESSION lz4;
