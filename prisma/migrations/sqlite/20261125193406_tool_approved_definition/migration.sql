-- AlterTable
ALTER TABLE "Tool" ADD COLUMN "approvedDefinition" JSONB;
