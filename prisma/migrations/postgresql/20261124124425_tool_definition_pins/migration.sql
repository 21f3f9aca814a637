-- AlterTable
ALTER TABLE "Tool" ADD COLUMN     "approvedDefinitionHash" TEXT,
ADD COLUMN     "liveDefinitionHash" TEXT;
