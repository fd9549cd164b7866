-- AlterTable
ALTER TABLE "Merchant" ADD COLUMN "totpLastStep" INTEGER;
