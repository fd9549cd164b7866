-- DropForeignKey
ALTER TABLE "Verification" DROP CONSTRAINT "Verification_merchantId_fkey";
