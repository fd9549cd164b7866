-- AlterTable
ALTER TABLE "KycTransaction" ADD COLUMN     "reversedAt" TIMESTAMP(3);
