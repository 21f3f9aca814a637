-- AlterTable
ALTER TABLE "Workspace" ADD COLUMN     "endUserPasswordSignIn" BOOLEAN NOT NULL DEFAULT true;
