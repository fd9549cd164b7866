-- AlterTable
ALTER TABLE "KycTransaction" ADD COLUMN "reversedAt" DATETIME;
