-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Verification" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "merchantId" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "requestId" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "nameQueried" TEXT,
    "outcome" TEXT NOT NULL,
    "nameMatch" REAL,
    "sourceNameMatch" REAL,
    "errorCode" TEXT,
    "batchId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO "new_Verification" ("batchId", "createdAt", "errorCode", "id", "kind", "merchantId", "mode", "nameMatch", "nameQueried", "outcome", "requestId", "sourceNameMatch", "subject") SELECT "batchId", "createdAt", "errorCode", "id", "kind", "merchantId", "mode", "nameMatch", "nameQueried", "outcome", "requestId", "sourceNameMatch", "subject" FROM "Verification";
DROP TABLE "Verification";
ALTER TABLE "new_Verification" RENAME TO "Verification";
CREATE INDEX "Verification_merchantId_mode_createdAt_idx" ON "Verification"("merchantId", "mode", "createdAt");
CREATE INDEX "Verification_merchantId_subject_idx" ON "Verification"("merchantId", "subject");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
