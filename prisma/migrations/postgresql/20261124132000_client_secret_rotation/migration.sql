-- AlterTable
ALTER TABLE "Client" ADD COLUMN     "previousSecretExpiresAt" TIMESTAMP(3),
ADD COLUMN     "previousSecretHash" TEXT;
