-- AlterTable
ALTER TABLE "Verification" ADD COLUMN     "sourceNameMatch" DOUBLE PRECISION;
