-- AlterTable
ALTER TABLE "PaymentEvent" ADD COLUMN "refundId" TEXT;

-- CreateTable
CREATE TABLE "Refund" (
    "id" TEXT NOT NULL PRIMARY KEY,
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
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "processedAt" DATETIME,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Refund_paymentId_fkey" FOREIGN KEY ("paymentId") REFERENCES "Payment" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Payment" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "merchantId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "amountPaise" INTEGER NOT NULL,
    "currency" TEXT NOT NULL DEFAULT 'INR',
    "status" TEXT NOT NULL,
    "description" TEXT,
    "customerName" TEXT,
    "customerEmail" TEXT,
    "customerPhone" TEXT,
    "lat" REAL,
    "lng" REAL,
    "redirectUrl" TEXT,
    "method" TEXT,
    "bankReference" TEXT,
    "paidAt" DATETIME,
    "expiresAt" DATETIME NOT NULL,
    "openOrderKey" TEXT,
    "paidOrderKey" TEXT,
    "refundedPaise" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_Payment" ("amountPaise", "bankReference", "createdAt", "currency", "customerEmail", "customerName", "customerPhone", "description", "expiresAt", "id", "lat", "lng", "merchantId", "method", "mode", "openOrderKey", "orderId", "paidAt", "paidOrderKey", "redirectUrl", "status", "updatedAt") SELECT "amountPaise", "bankReference", "createdAt", "currency", "customerEmail", "customerName", "customerPhone", "description", "expiresAt", "id", "lat", "lng", "merchantId", "method", "mode", "openOrderKey", "orderId", "paidAt", "paidOrderKey", "redirectUrl", "status", "updatedAt" FROM "Payment";
DROP TABLE "Payment";
ALTER TABLE "new_Payment" RENAME TO "Payment";
CREATE UNIQUE INDEX "Payment_openOrderKey_key" ON "Payment"("openOrderKey");
CREATE UNIQUE INDEX "Payment_paidOrderKey_key" ON "Payment"("paidOrderKey");
CREATE INDEX "Payment_merchantId_mode_createdAt_idx" ON "Payment"("merchantId", "mode", "createdAt");
CREATE INDEX "Payment_merchantId_mode_orderId_idx" ON "Payment"("merchantId", "mode", "orderId");
CREATE INDEX "Payment_status_expiresAt_idx" ON "Payment"("status", "expiresAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

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
