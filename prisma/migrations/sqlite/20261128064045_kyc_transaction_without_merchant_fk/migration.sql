-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_KycTransaction" (
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
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO "new_KycTransaction" ("balanceAfterPaise", "createdAt", "feePaise", "id", "kind", "ledgerEntryId", "merchantId", "mode", "nameMatchScore", "otpRequestId", "outcome", "requestId", "resultEnc", "resultExpiresAt", "subjectMasked") SELECT "balanceAfterPaise", "createdAt", "feePaise", "id", "kind", "ledgerEntryId", "merchantId", "mode", "nameMatchScore", "otpRequestId", "outcome", "requestId", "resultEnc", "resultExpiresAt", "subjectMasked" FROM "KycTransaction";
DROP TABLE "KycTransaction";
ALTER TABLE "new_KycTransaction" RENAME TO "KycTransaction";
CREATE INDEX "KycTransaction_merchantId_mode_createdAt_idx" ON "KycTransaction"("merchantId", "mode", "createdAt");
CREATE INDEX "KycTransaction_resultExpiresAt_idx" ON "KycTransaction"("resultExpiresAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
