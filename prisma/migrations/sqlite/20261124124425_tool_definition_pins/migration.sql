-- AlterTable
ALTER TABLE "Tool" ADD COLUMN "approvedDefinitionHash" TEXT;
ALTER TABLE "Tool" ADD COLUMN "liveDefinitionHash" TEXT;
