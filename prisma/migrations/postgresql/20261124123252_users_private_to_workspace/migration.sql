-- Written by hand (docs/decisions/0017-users-private-to-a-workspace.md): users become private to one
-- workspace. A user keeps their id in their home workspace (the oldest membership; else the oldest
-- workspace any of their rows names; else the oldest workspace) and gets a copy (same email,
-- username and password hash, a new id) in every other workspace whose rows name them; those rows
-- are re-pointed to the copy. Access tokens already issued to the old id in those other workspaces
-- stop introspecting active (their subject is no member there any more); refresh tokens move to the
-- copy and keep working.

-- Every (user, workspace) pair a row names, with a time to order by.
CREATE TEMP TABLE "_UserPlace" ON COMMIT DROP AS
  SELECT "userId", "tenantId", "createdAt" AS "at" FROM "Membership"
  UNION ALL SELECT "userId", "tenantId", "createdAt" FROM "EndUserState"
  UNION ALL SELECT "userId", "tenantId", "createdAt" FROM "GroupMember"
  UNION ALL SELECT "subjectId", "tenantId", "createdAt" FROM "RoleBinding" WHERE "subjectType" = 'user'
  UNION ALL SELECT "userId", "tenantId", "createdAt" FROM "RefreshToken"
  UNION ALL SELECT "userId", "tenantId", "createdAt" FROM "AuthorizationCode"
  UNION ALL SELECT "userId", "tenantId", "firstAt" FROM "ServerSignIn";
DELETE FROM "_UserPlace" WHERE "tenantId" NOT IN (SELECT "id" FROM "Workspace");

DROP INDEX "User_email_key";
ALTER TABLE "User" ADD COLUMN "tenantId" TEXT;
UPDATE "User" u SET "tenantId" = COALESCE(
  (SELECT m."tenantId" FROM "Membership" m WHERE m."userId" = u."id" ORDER BY m."createdAt", m."id" LIMIT 1),
  (SELECT p."tenantId" FROM "_UserPlace" p WHERE p."userId" = u."id" ORDER BY p."at" LIMIT 1),
  (SELECT w."id" FROM "Workspace" w ORDER BY w."createdAt", w."id" LIMIT 1));
-- A user with no workspace at all (an installation without workspaces) cannot sign in anywhere.
DELETE FROM "User" WHERE "tenantId" IS NULL;

-- One copy per (user, other workspace), with a new random UUID.
CREATE TEMP TABLE "_UserCopy" ON COMMIT DROP AS
  SELECT pairs."oldId", pairs."tenantId", gen_random_uuid()::text AS "newId"
  FROM (SELECT DISTINCT p."userId" AS "oldId", p."tenantId" AS "tenantId"
        FROM "_UserPlace" p JOIN "User" u ON u."id" = p."userId"
        WHERE p."tenantId" <> u."tenantId") pairs;
INSERT INTO "User" ("id", "tenantId", "email", "username", "passwordHash", "createdAt", "updatedAt")
  SELECT c."newId", c."tenantId", u."email", u."username", u."passwordHash", u."createdAt", u."updatedAt"
  FROM "_UserCopy" c JOIN "User" u ON u."id" = c."oldId";

UPDATE "Membership" t SET "userId" = c."newId" FROM "_UserCopy" c WHERE c."oldId" = t."userId" AND c."tenantId" = t."tenantId";
UPDATE "EndUserState" t SET "userId" = c."newId" FROM "_UserCopy" c WHERE c."oldId" = t."userId" AND c."tenantId" = t."tenantId";
UPDATE "GroupMember" t SET "userId" = c."newId" FROM "_UserCopy" c WHERE c."oldId" = t."userId" AND c."tenantId" = t."tenantId";
UPDATE "RoleBinding" t SET "subjectId" = c."newId" FROM "_UserCopy" c WHERE t."subjectType" = 'user' AND c."oldId" = t."subjectId" AND c."tenantId" = t."tenantId";
UPDATE "RefreshToken" t SET "userId" = c."newId" FROM "_UserCopy" c WHERE c."oldId" = t."userId" AND c."tenantId" = t."tenantId";
UPDATE "AuthorizationCode" t SET "userId" = c."newId" FROM "_UserCopy" c WHERE c."oldId" = t."userId" AND c."tenantId" = t."tenantId";
UPDATE "ServerSignIn" t SET "userId" = c."newId" FROM "_UserCopy" c WHERE c."oldId" = t."userId" AND c."tenantId" = t."tenantId";

ALTER TABLE "User" ALTER COLUMN "tenantId" SET NOT NULL;

-- CreateIndex
CREATE INDEX "User_email_idx" ON "User"("email");

-- CreateIndex
CREATE UNIQUE INDEX "User_tenantId_email_key" ON "User"("tenantId", "email");

-- AddForeignKey
ALTER TABLE "User" ADD CONSTRAINT "User_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;
