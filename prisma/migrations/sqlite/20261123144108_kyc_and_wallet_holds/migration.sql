-- CreateTable
CREATE TABLE "WalletHold" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "walletId" TEXT NOT NULL,
    "merchantId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "amountPaise" INTEGER NOT NULL,
    "reason" TEXT NOT NULL,
    "requestId" TEXT,
    "state" TEXT NOT NULL DEFAULT 'HELD',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settledAt" DATETIME,
    CONSTRAINT "WalletHold_walletId_fkey" FOREIGN KEY ("walletId") REFERENCES "Wallet" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "KycOtpRequest" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "merchantId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "aadhaarHash" TEXT NOT NULL,
    "maskedAadhaar" TEXT NOT NULL,
    "mobileLast4" TEXT NOT NULL,
    "sourceReference" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'OPEN',
    "wrongAttempts" INTEGER NOT NULL DEFAULT 0,
    "claimedAt" DATETIME,
    "expiresAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "verifiedAt" DATETIME
);

-- CreateTable
CREATE TABLE "KycTransaction" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "merchantId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "requestId" TEXT NOT NULL,
    "otpRequestId" TEXT,
    "subjectMasked" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "nameMatchScore" REAL,
    "feePaise" INTEGER NOT NULL,
    "balanceAfterPaise" INTEGER NOT NULL,
    "ledgerEntryId" TEXT NOT NULL,
    "resultEnc" TEXT,
    "resultExpiresAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "KycTransaction_merchantId_fkey" FOREIGN KEY ("merchantId") REFERENCES "Merchant" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Merchant" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'ACTIVE',
    "liveEnabled" BOOLEAN NOT NULL DEFAULT false,
    "goLiveRequestedAt" DATETIME,
    "goLiveApprovedAt" DATETIME,
    "enforceWhitelistAll" BOOLEAN NOT NULL DEFAULT false,
    "displayName" TEXT,
    "brandColor" TEXT,
    "logoUrl" TEXT,
    "supportEmail" TEXT,
    "checkoutExpiryMinutes" INTEGER NOT NULL DEFAULT 30,
    "checkoutFrameOrigins" TEXT,
    "sessionVersion" INTEGER NOT NULL DEFAULT 0,
    "totpSecretEnc" TEXT,
    "totpEnabled" BOOLEAN NOT NULL DEFAULT false,
    "totpLastStep" INTEGER,
    "kycFeeAadhaarPaise" INTEGER NOT NULL DEFAULT 300,
    "kycFeePanPaise" INTEGER NOT NULL DEFAULT 100,
    "kycFeeBankPaise" INTEGER NOT NULL DEFAULT 200,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_Merchant" ("brandColor", "checkoutExpiryMinutes", "checkoutFrameOrigins", "createdAt", "displayName", "email", "enforceWhitelistAll", "goLiveApprovedAt", "goLiveRequestedAt", "id", "liveEnabled", "logoUrl", "name", "passwordHash", "sessionVersion", "status", "supportEmail", "totpEnabled", "totpLastStep", "totpSecretEnc", "updatedAt") SELECT "brandColor", "checkoutExpiryMinutes", "checkoutFrameOrigins", "createdAt", "displayName", "email", "enforceWhitelistAll", "goLiveApprovedAt", "goLiveRequestedAt", "id", "liveEnabled", "logoUrl", "name", "passwordHash", "sessionVersion", "status", "supportEmail", "totpEnabled", "totpLastStep", "totpSecretEnc", "updatedAt" FROM "Merchant";
DROP TABLE "Merchant";
ALTER TABLE "new_Merchant" RENAME TO "Merchant";
CREATE UNIQUE INDEX "Merchant_email_key" ON "Merchant"("email");
CREATE TABLE "new_Wallet" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "merchantId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "balancePaise" INTEGER NOT NULL DEFAULT 0,
    "availablePaise" INTEGER NOT NULL DEFAULT 0,
    "lowBalanceThresholdPaise" INTEGER,
    "lowBalanceAlerted" BOOLEAN NOT NULL DEFAULT false,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Wallet_merchantId_fkey" FOREIGN KEY ("merchantId") REFERENCES "Merchant" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
-- Open holds did not exist before: what is available is the whole balance.
INSERT INTO "new_Wallet" ("availablePaise", "balancePaise", "id", "merchantId", "mode", "updatedAt") SELECT "balancePaise", "balancePaise", "id", "merchantId", "mode", "updatedAt" FROM "Wallet";
DROP TABLE "Wallet";
ALTER TABLE "new_Wallet" RENAME TO "Wallet";
CREATE UNIQUE INDEX "Wallet_merchantId_mode_key" ON "Wallet"("merchantId", "mode");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

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
