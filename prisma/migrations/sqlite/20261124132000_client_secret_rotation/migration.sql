-- AlterTable
ALTER TABLE "Client" ADD COLUMN "previousSecretExpiresAt" DATETIME;
ALTER TABLE "Client" ADD COLUMN "previousSecretHash" TEXT;
