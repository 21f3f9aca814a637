-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_IdentityProvider" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "clientSecretEnc" TEXT,
    "tokenEndpointAuthMethod" TEXT NOT NULL DEFAULT 'client_secret_basic',
    "scopes" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "emailDomains" JSONB NOT NULL,
    "claimMapping" JSONB NOT NULL,
    "jitProvisioning" BOOLEAN NOT NULL DEFAULT true,
    "defaultRoleId" TEXT,
    "trustEmails" BOOLEAN NOT NULL DEFAULT false,
    "groupSync" JSONB NOT NULL,
    "allowedFor" JSONB NOT NULL,
    "authorizationEndpoint" TEXT NOT NULL,
    "tokenEndpoint" TEXT NOT NULL,
    "jwksUri" TEXT NOT NULL,
    "discoveredAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_IdentityProvider" ("allowedFor", "authorizationEndpoint", "claimMapping", "clientId", "clientSecretEnc", "createdAt", "defaultRoleId", "discoveredAt", "emailDomains", "enabled", "groupSync", "id", "issuer", "jitProvisioning", "jwksUri", "name", "scopes", "tenantId", "tokenEndpoint", "trustEmails", "updatedAt") SELECT "allowedFor", "authorizationEndpoint", "claimMapping", "clientId", "clientSecretEnc", "createdAt", "defaultRoleId", "discoveredAt", "emailDomains", "enabled", "groupSync", "id", "issuer", "jitProvisioning", "jwksUri", "name", "scopes", "tenantId", "tokenEndpoint", "trustEmails", "updatedAt" FROM "IdentityProvider";
DROP TABLE "IdentityProvider";
ALTER TABLE "new_IdentityProvider" RENAME TO "IdentityProvider";
CREATE UNIQUE INDEX "IdentityProvider_tenantId_name_key" ON "IdentityProvider"("tenantId", "name");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
