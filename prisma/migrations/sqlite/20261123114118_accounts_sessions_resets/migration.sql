-- CreateTable
CREATE TABLE "SignInThrottle" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "subject" TEXT NOT NULL,
    "failures" INTEGER NOT NULL DEFAULT 0,
    "lockedUntil" DATETIME,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "PasswordResetToken" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "role" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "usedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "EmailMessage" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "to" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "body" TEXT,
    "status" TEXT NOT NULL,
    "error" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sentAt" DATETIME
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_AdminUser" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "sessionVersion" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO "new_AdminUser" ("createdAt", "email", "id", "passwordHash") SELECT "createdAt", "email", "id", "passwordHash" FROM "AdminUser";
DROP TABLE "AdminUser";
ALTER TABLE "new_AdminUser" RENAME TO "AdminUser";
CREATE UNIQUE INDEX "AdminUser_email_key" ON "AdminUser"("email");
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
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_Merchant" ("brandColor", "checkoutExpiryMinutes", "checkoutFrameOrigins", "createdAt", "displayName", "email", "enforceWhitelistAll", "goLiveApprovedAt", "goLiveRequestedAt", "id", "liveEnabled", "logoUrl", "name", "passwordHash", "status", "supportEmail", "totpEnabled", "totpLastStep", "totpSecretEnc", "updatedAt") SELECT "brandColor", "checkoutExpiryMinutes", "checkoutFrameOrigins", "createdAt", "displayName", "email", "enforceWhitelistAll", "goLiveApprovedAt", "goLiveRequestedAt", "id", "liveEnabled", "logoUrl", "name", "passwordHash", "status", "supportEmail", "totpEnabled", "totpLastStep", "totpSecretEnc", "updatedAt" FROM "Merchant";
DROP TABLE "Merchant";
ALTER TABLE "new_Merchant" RENAME TO "Merchant";
CREATE UNIQUE INDEX "Merchant_email_key" ON "Merchant"("email");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "SignInThrottle_subject_idx" ON "SignInThrottle"("subject");

-- CreateIndex
CREATE INDEX "SignInThrottle_updatedAt_idx" ON "SignInThrottle"("updatedAt");

-- CreateIndex
CREATE UNIQUE INDEX "PasswordResetToken_tokenHash_key" ON "PasswordResetToken"("tokenHash");

-- CreateIndex
CREATE INDEX "PasswordResetToken_role_accountId_createdAt_idx" ON "PasswordResetToken"("role", "accountId", "createdAt");

-- CreateIndex
CREATE INDEX "EmailMessage_createdAt_idx" ON "EmailMessage"("createdAt");
