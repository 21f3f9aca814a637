-- DropTable
PRAGMA foreign_keys=off;
DROP TABLE "CacheVersion";
PRAGMA foreign_keys=on;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_ToolScope" (
    "toolId" TEXT NOT NULL,
    "scopeId" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "resourceServerId" TEXT NOT NULL,

    PRIMARY KEY ("toolId", "scopeId"),
    CONSTRAINT "ToolScope_toolId_fkey" FOREIGN KEY ("toolId") REFERENCES "Tool" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ToolScope_scopeId_fkey" FOREIGN KEY ("scopeId") REFERENCES "Scope" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
-- Edited by hand: existing mappings take their tool's server.
INSERT INTO "new_ToolScope" ("scopeId", "tenantId", "toolId", "resourceServerId")
  SELECT "scopeId", "tenantId", "toolId", (SELECT "resourceServerId" FROM "Tool" WHERE "Tool"."id" = "ToolScope"."toolId") FROM "ToolScope";
DROP TABLE "ToolScope";
ALTER TABLE "new_ToolScope" RENAME TO "ToolScope";
CREATE INDEX "ToolScope_scopeId_idx" ON "ToolScope"("scopeId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "ResourceServer_tenantId_resourceUrl_idx" ON "ResourceServer"("tenantId", "resourceUrl");

-- CreateIndex
CREATE INDEX "GroupMember_tenantId_userId_idx" ON "GroupMember"("tenantId", "userId");
