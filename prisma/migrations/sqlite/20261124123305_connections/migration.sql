-- CreateTable
CREATE TABLE "Connection" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "clientRowId" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "resourceServerId" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'approved',
    "scopesGranted" JSONB NOT NULL,
    "firstConnectedAt" DATETIME NOT NULL,
    "lastConnectedAt" DATETIME NOT NULL,
    "revokedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Connection_clientRowId_fkey" FOREIGN KEY ("clientRowId") REFERENCES "Client" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Connection_resourceServerId_fkey" FOREIGN KEY ("resourceServerId") REFERENCES "ResourceServer" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Connection_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Client" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "clientId" TEXT NOT NULL,
    "tenantId" TEXT,
    "resourceServerId" TEXT,
    "clientName" TEXT NOT NULL,
    "description" TEXT,
    "kind" TEXT NOT NULL,
    "registrationMode" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'approved',
    "secretHash" TEXT,
    "tokenEndpointAuthMethod" TEXT NOT NULL DEFAULT 'client_secret_basic',
    "redirectUris" JSONB NOT NULL,
    "stagedRedirectUris" JSONB,
    "grantTypes" JSONB NOT NULL,
    "allowedScopes" JSONB NOT NULL,
    "tokenLifetime" INTEGER NOT NULL DEFAULT 3600,
    "metadataUrl" TEXT,
    "registrationMetadata" JSONB,
    "registrationTokenHash" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "revokedAt" DATETIME,
    "lastUsedAt" DATETIME,
    CONSTRAINT "Client_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Client_resourceServerId_fkey" FOREIGN KEY ("resourceServerId") REFERENCES "ResourceServer" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Client" ("allowedScopes", "clientId", "clientName", "createdAt", "description", "grantTypes", "id", "kind", "lastUsedAt", "metadataUrl", "redirectUris", "registrationMode", "resourceServerId", "revokedAt", "secretHash", "stagedRedirectUris", "status", "tenantId", "tokenEndpointAuthMethod", "tokenLifetime", "updatedAt") SELECT "allowedScopes", "clientId", "clientName", "createdAt", "description", "grantTypes", "id", "kind", "lastUsedAt", "metadataUrl", "redirectUris", "registrationMode", "resourceServerId", "revokedAt", "secretHash", "stagedRedirectUris", "status", "tenantId", "tokenEndpointAuthMethod", "tokenLifetime", "updatedAt" FROM "Client";
DROP TABLE "Client";
ALTER TABLE "new_Client" RENAME TO "Client";
CREATE UNIQUE INDEX "Client_clientId_key" ON "Client"("clientId");
CREATE INDEX "Client_tenantId_idx" ON "Client"("tenantId");
CREATE INDEX "Client_registrationMode_createdAt_idx" ON "Client"("registrationMode", "createdAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "Connection_resourceServerId_status_idx" ON "Connection"("resourceServerId", "status");

-- CreateIndex
CREATE INDEX "Connection_tenantId_idx" ON "Connection"("tenantId");

-- CreateIndex
CREATE UNIQUE INDEX "Connection_clientId_resourceServerId_key" ON "Connection"("clientId", "resourceServerId");

-- CreateIndex
CREATE INDEX "ResourceServer_resourceUrl_idx" ON "ResourceServer"("resourceUrl");
