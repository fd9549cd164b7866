-- AlterTable
ALTER TABLE "Merchant" ADD COLUMN     "kycFeeAadhaarPaise" INTEGER NOT NULL DEFAULT 300,
ADD COLUMN     "kycFeeBankPaise" INTEGER NOT NULL DEFAULT 200,
ADD COLUMN     "kycFeePanPaise" INTEGER NOT NULL DEFAULT 100;

-- AlterTable
ALTER TABLE "Wallet" ADD COLUMN     "availablePaise" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "lowBalanceAlerted" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "lowBalanceThresholdPaise" INTEGER;

-- Open holds did not exist before: what is available is the whole balance.
UPDATE "Wallet" SET "availablePaise" = "balancePaise";

-- CreateTable
CREATE TABLE "WalletHold" (
    "id" TEXT NOT NULL,
    "walletId" TEXT NOT NULL,
    "merchantId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "amountPaise" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "requestId" TEXT,
    "state" TEXT NOT NULL DEFAULT 'HELD',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settledAt" TIMESTAMP(3),

    CONSTRAINT "WalletHold_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "KycOtpRequest" (
    "id" TEXT NOT NULL,
    "merchantId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "aadhaarHash" TEXT NOT NULL,
    "maskedAadhaar" TEXT NOT NULL,
    "mobileLast4" TEXT NOT NULL,
    "sourceReference" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'OPEN',
    "wrongAttempts" INTEGER NOT NULL DEFAULT 0,
    "claimedAt" TIMESTAMP(3),
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "verifiedAt" TIMESTAMP(3),

    CONSTRAINT "KycOtpRequest_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "KycTransaction" (
    "id" TEXT NOT NULL,
    "merchantId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "requestId" TEXT NOT NULL,
    "otpRequestId" TEXT,
    "subjectMasked" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "nameMatchScore" DOUBLE PRECISION,
    "feePaise" INTEGER NOT NULL,
    "balanceAfterPaise" INTEGER NOT NULL,
    "ledgerEntryId" TEXT NOT NULL,
    "resultEnc" TEXT,
    "resultExpiresAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "KycTransaction_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "WalletHold_state_createdAt_idx" ON "WalletHold"("state", "createdAt");

-- CreateIndex
CREATE INDEX "WalletHold_walletId_idx" ON "WalletHold"("walletId");

-- CreateIndex
CREATE INDEX "KycOtpRequest_merchantId_mode_aadhaarHash_createdAt_idx" ON "KycOtpRequest"("merchantId", "mode", "aadhaarHash", "createdAt");

-- CreateIndex
CREATE INDEX "KycOtpRequest_createdAt_idx" ON "KycOtpRequest"("createdAt");

-- CreateIndex
CREATE INDEX "KycTransaction_merchantId_mode_createdAt_idx" ON "KycTransaction"("merchantId", "mode", "createdAt");

-- CreateIndex
CREATE INDEX "KycTransaction_resultExpiresAt_idx" ON "KycTransaction"("resultExpiresAt");

-- CreateIndex
CREATE INDEX "LedgerEntry_merchantId_mode_createdAt_idx" ON "LedgerEntry"("merchantId", "mode", "createdAt");

-- AddForeignKey
ALTER TABLE "WalletHold" ADD CONSTRAINT "WalletHold_walletId_fkey" FOREIGN KEY ("walletId") REFERENCES "Wallet"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "KycTransaction" ADD CONSTRAINT "KycTransaction_merchantId_fkey" FOREIGN KEY ("merchantId") REFERENCES "Merchant"("id") ON DELETE CASCADE ON UPDATE CASCADE;
