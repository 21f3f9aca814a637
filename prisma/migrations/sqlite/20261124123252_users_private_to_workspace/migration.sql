-- Written by hand (docs/decisions/0017-users-private-to-a-workspace.md): users become private to one
-- workspace. A user keeps their id in their home workspace (the oldest membership; else the oldest
-- workspace any of their rows names; else the oldest workspace) and gets a copy (same email,
-- username and password hash, a new id) in every other workspace whose rows name them; those rows
-- are re-pointed to the copy. Access tokens already issued to the old id in those other workspaces
-- stop introspecting active (their subject is no member there any more); refresh tokens move to the
-- copy and keep working.
--
-- SQLite: the column is added in place rather than by Prisma's usual "RedefineTables": dropping the
-- old "User" table inside the migration transaction (where PRAGMA foreign_keys=OFF is a no-op) would
-- cascade to every membership. The column is therefore nullable at the SQLite level; the schema and
-- every write path keep it set.

-- Every (user, workspace) pair a row names, with a time to order by.
CREATE TEMP TABLE "_UserPlace" AS
  SELECT "userId", "tenantId", "createdAt" AS "at" FROM "Membership"
  UNION ALL SELECT "userId", "tenantId", "createdAt" FROM "EndUserState"
  UNION ALL SELECT "userId", "tenantId", "createdAt" FROM "GroupMember"
  UNION ALL SELECT "subjectId", "tenantId", "createdAt" FROM "RoleBinding" WHERE "subjectType" = 'user'
  UNION ALL SELECT "userId", "tenantId", "createdAt" FROM "RefreshToken"
  UNION ALL SELECT "userId", "tenantId", "createdAt" FROM "AuthorizationCode"
  UNION ALL SELECT "userId", "tenantId", "firstAt" FROM "ServerSignIn";
DELETE FROM "_UserPlace" WHERE "tenantId" NOT IN (SELECT "id" FROM "Workspace");

DROP INDEX "User_email_key";
ALTER TABLE "User" ADD COLUMN "tenantId" TEXT REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE;
UPDATE "User" SET "tenantId" = COALESCE(
  (SELECT m."tenantId" FROM "Membership" m WHERE m."userId" = "User"."id" ORDER BY m."createdAt", m."id" LIMIT 1),
  (SELECT p."tenantId" FROM "_UserPlace" p WHERE p."userId" = "User"."id" ORDER BY p."at" LIMIT 1),
  (SELECT w."id" FROM "Workspace" w ORDER BY w."createdAt", w."id" LIMIT 1));
-- A user with no workspace at all (an installation without workspaces) cannot sign in anywhere.
DELETE FROM "User" WHERE "tenantId" IS NULL;

-- One copy per (user, other workspace), with a new random UUID (version 4 layout).
CREATE TEMP TABLE "_UserCopy" AS
  SELECT DISTINCT p."userId" AS "oldId", p."tenantId" AS "tenantId", CAST(NULL AS TEXT) AS "newId"
  FROM "_UserPlace" p JOIN "User" u ON u."id" = p."userId"
  WHERE p."tenantId" <> u."tenantId";
UPDATE "_UserCopy" SET "newId" = lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)));
INSERT INTO "User" ("id", "tenantId", "email", "username", "passwordHash", "createdAt", "updatedAt")
  SELECT c."newId", c."tenantId", u."email", u."username", u."passwordHash", u."createdAt", u."updatedAt"
  FROM "_UserCopy" c JOIN "User" u ON u."id" = c."oldId";

UPDATE "Membership" SET "userId" = (SELECT c."newId" FROM "_UserCopy" c WHERE c."oldId" = "Membership"."userId" AND c."tenantId" = "Membership"."tenantId")
  WHERE EXISTS (SELECT 1 FROM "_UserCopy" c WHERE c."oldId" = "Membership"."userId" AND c."tenantId" = "Membership"."tenantId");
UPDATE "EndUserState" SET "userId" = (SELECT c."newId" FROM "_UserCopy" c WHERE c."oldId" = "EndUserState"."userId" AND c."tenantId" = "EndUserState"."tenantId")
  WHERE EXISTS (SELECT 1 FROM "_UserCopy" c WHERE c."oldId" = "EndUserState"."userId" AND c."tenantId" = "EndUserState"."tenantId");
UPDATE "GroupMember" SET "userId" = (SELECT c."newId" FROM "_UserCopy" c WHERE c."oldId" = "GroupMember"."userId" AND c."tenantId" = "GroupMember"."tenantId")
  WHERE EXISTS (SELECT 1 FROM "_UserCopy" c WHERE c."oldId" = "GroupMember"."userId" AND c."tenantId" = "GroupMember"."tenantId");
UPDATE "RoleBinding" SET "subjectId" = (SELECT c."newId" FROM "_UserCopy" c WHERE c."oldId" = "RoleBinding"."subjectId" AND c."tenantId" = "RoleBinding"."tenantId")
  WHERE "subjectType" = 'user' AND EXISTS (SELECT 1 FROM "_UserCopy" c WHERE c."oldId" = "RoleBinding"."subjectId" AND c."tenantId" = "RoleBinding"."tenantId");
UPDATE "RefreshToken" SET "userId" = (SELECT c."newId" FROM "_UserCopy" c WHERE c."oldId" = "RefreshToken"."userId" AND c."tenantId" = "RefreshToken"."tenantId")
  WHERE EXISTS (SELECT 1 FROM "_UserCopy" c WHERE c."oldId" = "RefreshToken"."userId" AND c."tenantId" = "RefreshToken"."tenantId");
UPDATE "AuthorizationCode" SET "userId" = (SELECT c."newId" FROM "_UserCopy" c WHERE c."oldId" = "AuthorizationCode"."userId" AND c."tenantId" = "AuthorizationCode"."tenantId")
  WHERE EXISTS (SELECT 1 FROM "_UserCopy" c WHERE c."oldId" = "AuthorizationCode"."userId" AND c."tenantId" = "AuthorizationCode"."tenantId");
UPDATE "ServerSignIn" SET "userId" = (SELECT c."newId" FROM "_UserCopy" c WHERE c."oldId" = "ServerSignIn"."userId" AND c."tenantId" = "ServerSignIn"."tenantId")
  WHERE EXISTS (SELECT 1 FROM "_UserCopy" c WHERE c."oldId" = "ServerSignIn"."userId" AND c."tenantId" = "ServerSignIn"."tenantId");

DROP TABLE "_UserCopy";
DROP TABLE "_UserPlace";

CREATE INDEX "User_email_idx" ON "User"("email");
CREATE UNIQUE INDEX "User_tenantId_email_key" ON "User"("tenantId", "email");
