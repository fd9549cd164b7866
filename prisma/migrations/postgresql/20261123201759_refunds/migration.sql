-- AlterTable
ALTER TABLE "Payment" ADD COLUMN     "refundedPaise" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "PaymentEvent" ADD COLUMN     "refundId" TEXT;

-- CreateTable
CREATE TABLE "Refund" (
    "id" TEXT NOT NULL,
    "paymentId" TEXT NOT NULL,
    "merchantId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "amountPaise" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "reason" TEXT,
    "merchantRefundId" TEXT,
    "merchantRefundKey" TEXT,
    "requestedAmountPaise" INTEGER,
    "attemptId" TEXT,
    "failureReason" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processedAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Refund_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Refund_merchantRefundKey_key" ON "Refund"("merchantRefundKey");

-- CreateIndex
CREATE UNIQUE INDEX "Refund_attemptId_key" ON "Refund"("attemptId");

-- CreateIndex
CREATE INDEX "Refund_merchantId_mode_createdAt_idx" ON "Refund"("merchantId", "mode", "createdAt");

-- CreateIndex
CREATE INDEX "Refund_paymentId_createdAt_idx" ON "Refund"("paymentId", "createdAt");

-- CreateIndex
CREATE INDEX "Refund_status_idx" ON "Refund"("status");

-- AddForeignKey
ALTER TABLE "Refund" ADD CONSTRAINT "Refund_paymentId_fkey" FOREIGN KEY ("paymentId") REFERENCES "Payment"("id") ON DELETE CASCADE ON UPDATE CASCADE;
