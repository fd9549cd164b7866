-- AlterTable
ALTER TABLE "PaymentAttempt" ADD COLUMN "customerAction" TEXT;
