-- AlterTable
ALTER TABLE "Verification" ADD COLUMN "sourceNameMatch" REAL;
