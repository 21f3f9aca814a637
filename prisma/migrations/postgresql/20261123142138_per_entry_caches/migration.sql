-- AlterTable
-- Edited by hand: existing mappings take their tool's server, then the column becomes required.
ALTER TABLE "ToolScope" ADD COLUMN "resourceServerId" TEXT;
UPDATE "ToolScope" SET "resourceServerId" = "Tool"."resourceServerId" FROM "Tool" WHERE "Tool"."id" = "ToolScope"."toolId";
ALTER TABLE "ToolScope" ALTER COLUMN "resourceServerId" SET NOT NULL;

-- DropTable
DROP TABLE "CacheVersion";

-- CreateIndex
CREATE INDEX "ResourceServer_tenantId_resourceUrl_idx" ON "ResourceServer"("tenantId", "resourceUrl");

-- CreateIndex
CREATE INDEX "GroupMember_tenantId_userId_idx" ON "GroupMember"("tenantId", "userId");
