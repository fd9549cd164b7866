-- AlterTable
ALTER TABLE "Job" ADD COLUMN "periodKey" TEXT;
ALTER TABLE "Job" ADD COLUMN "subjectId" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "Job_periodKey_key" ON "Job"("periodKey");

-- CreateIndex
CREATE INDEX "Job_type_subjectId_idx" ON "Job"("type", "subjectId");

-- Live refund jobs name their refund, as new ones do (the stalled-refund sweep looks them up by it).
UPDATE "Job" SET "subjectId" = json_extract("payload", '$.refundId')
WHERE "type" = 'refund.process' AND "status" IN ('QUEUED', 'RUNNING') AND "payload" LIKE '{"refundId":"%';
