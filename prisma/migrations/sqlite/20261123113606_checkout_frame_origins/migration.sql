-- AlterTable
ALTER TABLE "Merchant" ADD COLUMN "checkoutFrameOrigins" TEXT;
