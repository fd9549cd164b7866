-- AlterTable
ALTER TABLE "PaymentAttempt" ADD COLUMN "processorRef" TEXT;

-- CreateTable
CREATE TABLE "ProcessorWebhook" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "provider" TEXT NOT NULL,
    "eventType" TEXT NOT NULL,
    "bodyHash" TEXT NOT NULL,
    "summary" TEXT NOT NULL,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE UNIQUE INDEX "ProcessorWebhook_bodyHash_key" ON "ProcessorWebhook"("bodyHash");

-- CreateIndex
CREATE INDEX "ProcessorWebhook_receivedAt_idx" ON "ProcessorWebhook"("receivedAt");

-- CreateIndex
CREATE INDEX "PaymentAttempt_paymentId_processorRef_idx" ON "PaymentAttempt"("paymentId", "processorRef");
