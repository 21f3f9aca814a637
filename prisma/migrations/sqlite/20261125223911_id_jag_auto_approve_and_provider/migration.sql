-- AlterTable
ALTER TABLE "IdJagTrust" ADD COLUMN "autoApproveGroupIds" JSONB;
ALTER TABLE "IdJagTrust" ADD COLUMN "providerId" TEXT;
