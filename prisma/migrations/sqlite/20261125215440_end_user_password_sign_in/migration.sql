-- AlterTable (by hand: an ADD COLUMN with a constant default, never a rebuild of Workspace, which
-- other tables reference: test/migrations.test.ts)
ALTER TABLE "Workspace" ADD COLUMN "endUserPasswordSignIn" BOOLEAN NOT NULL DEFAULT true;
