-- AlterTable
ALTER TABLE "Batch" ADD COLUMN "consent" BOOLEAN;
ALTER TABLE "Batch" ADD COLUMN "consentSource" TEXT;
ALTER TABLE "Batch" ADD COLUMN "purpose" TEXT;

-- AlterTable
ALTER TABLE "KycTransaction" ADD COLUMN "consent" BOOLEAN;
ALTER TABLE "KycTransaction" ADD COLUMN "consentSource" TEXT;
ALTER TABLE "KycTransaction" ADD COLUMN "purpose" TEXT;

-- AlterTable
ALTER TABLE "Merchant" ADD COLUMN "consentPurpose" TEXT;
ALTER TABLE "Merchant" ADD COLUMN "consentStandingAt" DATETIME;

-- AlterTable
ALTER TABLE "Verification" ADD COLUMN "consent" BOOLEAN;
ALTER TABLE "Verification" ADD COLUMN "consentSource" TEXT;
ALTER TABLE "Verification" ADD COLUMN "purpose" TEXT;
