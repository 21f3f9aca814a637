-- The column is added in place: Prisma's "RedefineTables" would DROP "User", which Membership and
-- others reference ON DELETE CASCADE, and PRAGMA foreign_keys=OFF is a no-op inside the migration's
-- transaction, so the drop would delete their rows (test/migrations.test.ts forbids it).
ALTER TABLE "User" ADD COLUMN "credentialVersion" INTEGER NOT NULL DEFAULT 0;
