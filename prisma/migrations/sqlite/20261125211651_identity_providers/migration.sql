-- CreateTable
CREATE TABLE "IdentityProvider" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "clientSecretEnc" TEXT,
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

-- CreateTable
CREATE TABLE "FederatedIdentity" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "providerId" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "email" TEXT,
    "lastAmr" JSONB,
    "lastAcr" TEXT,
    "lastSignInAt" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL,
    CONSTRAINT "FederatedIdentity_providerId_fkey" FOREIGN KEY ("providerId") REFERENCES "IdentityProvider" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "FederatedIdentity_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "IdentityProvider_tenantId_name_key" ON "IdentityProvider"("tenantId", "name");

-- CreateIndex
CREATE INDEX "FederatedIdentity_tenantId_userId_idx" ON "FederatedIdentity"("tenantId", "userId");

-- CreateIndex
CREATE UNIQUE INDEX "FederatedIdentity_providerId_subject_key" ON "FederatedIdentity"("providerId", "subject");
