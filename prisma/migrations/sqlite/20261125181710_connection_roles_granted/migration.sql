-- AlterTable
ALTER TABLE "Connection" ADD COLUMN "lastUserId" TEXT;
ALTER TABLE "Connection" ADD COLUMN "rolesGranted" JSONB;
