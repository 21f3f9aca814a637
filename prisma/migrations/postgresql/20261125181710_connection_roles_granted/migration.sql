-- AlterTable
ALTER TABLE "Connection" ADD COLUMN     "lastUserId" TEXT,
ADD COLUMN     "rolesGranted" JSONB;
