-- DropForeignKey
ALTER TABLE "KycTransaction" DROP CONSTRAINT "KycTransaction_merchantId_fkey";
