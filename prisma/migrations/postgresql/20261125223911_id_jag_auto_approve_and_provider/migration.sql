-- AlterTable
ALTER TABLE "IdJagTrust" ADD COLUMN     "autoApproveGroupIds" JSONB,
ADD COLUMN     "providerId" TEXT;
