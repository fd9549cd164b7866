-- AlterTable
ALTER TABLE "KycTransaction" ADD COLUMN     "vendor" TEXT;

-- AlterTable
ALTER TABLE "Verification" ADD COLUMN     "vendor" TEXT;
