-- AlterTable
ALTER TABLE "Batch" ADD COLUMN     "consent" BOOLEAN,
ADD COLUMN     "consentSource" TEXT,
ADD COLUMN     "purpose" TEXT;

-- AlterTable
ALTER TABLE "KycTransaction" ADD COLUMN     "consent" BOOLEAN,
ADD COLUMN     "consentSource" TEXT,
ADD COLUMN     "purpose" TEXT;

-- AlterTable
ALTER TABLE "Merchant" ADD COLUMN     "consentPurpose" TEXT,
ADD COLUMN     "consentStandingAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "Verification" ADD COLUMN     "consent" BOOLEAN,
ADD COLUMN     "consentSource" TEXT,
ADD COLUMN     "purpose" TEXT;
