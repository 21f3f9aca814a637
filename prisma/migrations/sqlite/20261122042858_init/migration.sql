-- CreateTable
CREATE TABLE "Workspace" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "User" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "email" TEXT NOT NULL,
    "username" TEXT NOT NULL,
    "passwordHash" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Membership" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "membershipType" TEXT NOT NULL DEFAULT 'member',
    "status" TEXT NOT NULL DEFAULT 'active',
    "source" TEXT NOT NULL DEFAULT 'api',
    "externalId" TEXT,
    "suspendedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Membership_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Membership_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "EndUserState" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "planTier" TEXT,
    "rateLimitOverride" TEXT,
    "suspendedReason" TEXT,
    "suspendedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "EndUserState_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "SigningKey" (
    "kid" TEXT NOT NULL PRIMARY KEY,
    "alg" TEXT NOT NULL,
    "publicJwk" TEXT NOT NULL,
    "privateJwkEnc" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "activatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "ResourceServer" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "publicBaseUrl" TEXT NOT NULL,
    "protectedBasePath" TEXT NOT NULL,
    "resourceUrl" TEXT NOT NULL,
    "scopesSupported" JSONB NOT NULL,
    "registrationModes" JSONB NOT NULL,
    "validationMode" TEXT NOT NULL DEFAULT 'auto',
    "introspectionSecretHash" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'pending_scan',
    "scanGeneration" INTEGER NOT NULL DEFAULT 0,
    "lastSuccessfulGeneration" INTEGER NOT NULL DEFAULT 0,
    "lastScanStatus" TEXT,
    "lastScanError" TEXT,
    "scanStartedAt" DATETIME,
    "setupCompletedAt" DATETIME,
    "setupCompletedBy" TEXT,
    "deletedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "ResourceServer_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Tool" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "resourceServerId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "title" TEXT,
    "description" TEXT,
    "inputSchema" JSONB,
    "annotations" JSONB,
    "source" TEXT NOT NULL,
    "isPublic" BOOLEAN NOT NULL DEFAULT false,
    "lastSeenGeneration" INTEGER NOT NULL DEFAULT 0,
    "stale" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Tool_resourceServerId_fkey" FOREIGN KEY ("resourceServerId") REFERENCES "ResourceServer" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Scope" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "resourceServerId" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Scope_resourceServerId_fkey" FOREIGN KEY ("resourceServerId") REFERENCES "ResourceServer" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ToolScope" (
    "toolId" TEXT NOT NULL,
    "scopeId" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,

    PRIMARY KEY ("toolId", "scopeId"),
    CONSTRAINT "ToolScope_toolId_fkey" FOREIGN KEY ("toolId") REFERENCES "Tool" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ToolScope_scopeId_fkey" FOREIGN KEY ("scopeId") REFERENCES "Scope" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AccessPolicy" (
    "resourceServerId" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "defaultRoleId" TEXT,
    "firstTimeGrant" TEXT NOT NULL DEFAULT 'default_role',
    "updatedAt" DATETIME NOT NULL,
    "updatedBy" TEXT,
    CONSTRAINT "AccessPolicy_resourceServerId_fkey" FOREIGN KEY ("resourceServerId") REFERENCES "ResourceServer" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "AccessPolicy_defaultRoleId_fkey" FOREIGN KEY ("defaultRoleId") REFERENCES "Role" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "DriftEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "rsId" TEXT NOT NULL,
    "eventType" TEXT NOT NULL,
    "eventPayload" JSONB NOT NULL,
    "occurredAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "occurredBy" TEXT,
    "dismissedAt" DATETIME,
    "dismissedBy" TEXT,
    CONSTRAINT "DriftEvent_rsId_fkey" FOREIGN KEY ("rsId") REFERENCES "ResourceServer" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "SdkManifest" (
    "resourceServerId" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "pushedAt" DATETIME NOT NULL,
    "tools" JSONB NOT NULL,
    "valid" BOOLEAN NOT NULL,
    "validationErrors" JSONB NOT NULL,
    "toolCount" INTEGER NOT NULL,
    CONSTRAINT "SdkManifest_resourceServerId_fkey" FOREIGN KEY ("resourceServerId") REFERENCES "ResourceServer" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Client" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "clientId" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
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
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "revokedAt" DATETIME,
    "lastUsedAt" DATETIME,
    CONSTRAINT "Client_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Client_resourceServerId_fkey" FOREIGN KEY ("resourceServerId") REFERENCES "ResourceServer" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Role" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "RoleGrant" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "roleId" TEXT NOT NULL,
    "resourceServerId" TEXT NOT NULL,
    "scopeKey" TEXT NOT NULL,
    CONSTRAINT "RoleGrant_roleId_fkey" FOREIGN KEY ("roleId") REFERENCES "Role" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "Group" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "GroupMember" (
    "groupId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("groupId", "userId"),
    CONSTRAINT "GroupMember_groupId_fkey" FOREIGN KEY ("groupId") REFERENCES "Group" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "GroupMember_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "RoleBinding" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "roleId" TEXT NOT NULL,
    "subjectType" TEXT NOT NULL,
    "subjectId" TEXT NOT NULL,
    "scopeType" TEXT,
    "scopeId" TEXT,
    "conditions" JSONB,
    "expiresAt" DATETIME,
    "source" TEXT NOT NULL DEFAULT 'api',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdBy" TEXT,
    CONSTRAINT "RoleBinding_roleId_fkey" FOREIGN KEY ("roleId") REFERENCES "Role" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "AuthorizationCode" (
    "codeHash" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "redirectUri" TEXT NOT NULL,
    "codeChallenge" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "resource" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "usedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "redirectUriSent" BOOLEAN NOT NULL DEFAULT true,
    "consentId" TEXT NOT NULL
);

-- CreateTable
CREATE TABLE "RefreshToken" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tokenHash" TEXT NOT NULL,
    "familyId" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "resource" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "rotatedAt" DATETIME,
    "revokedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "ServerSignIn" (
    "tenantId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "resourceServerId" TEXT NOT NULL,
    "firstAt" DATETIME NOT NULL,

    PRIMARY KEY ("userId", "resourceServerId")
);

-- CreateTable
CREATE TABLE "RevokedToken" (
    "jti" TEXT NOT NULL PRIMARY KEY,
    "expiresAt" DATETIME NOT NULL,
    "revokedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "RevokedFamily" (
    "familyId" TEXT NOT NULL PRIMARY KEY,
    "expiresAt" DATETIME NOT NULL,
    "revokedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "CacheVersion" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "version" INTEGER NOT NULL DEFAULT 0
);

-- CreateIndex
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");

-- CreateIndex
CREATE INDEX "Membership_userId_idx" ON "Membership"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "Membership_tenantId_userId_key" ON "Membership"("tenantId", "userId");

-- CreateIndex
CREATE UNIQUE INDEX "EndUserState_tenantId_userId_key" ON "EndUserState"("tenantId", "userId");

-- CreateIndex
CREATE INDEX "ResourceServer_tenantId_idx" ON "ResourceServer"("tenantId");

-- CreateIndex
CREATE INDEX "Tool_tenantId_idx" ON "Tool"("tenantId");

-- CreateIndex
CREATE UNIQUE INDEX "Tool_resourceServerId_name_key" ON "Tool"("resourceServerId", "name");

-- CreateIndex
CREATE INDEX "Scope_tenantId_idx" ON "Scope"("tenantId");

-- CreateIndex
CREATE UNIQUE INDEX "Scope_resourceServerId_key_key" ON "Scope"("resourceServerId", "key");

-- CreateIndex
CREATE INDEX "ToolScope_scopeId_idx" ON "ToolScope"("scopeId");

-- CreateIndex
CREATE INDEX "DriftEvent_rsId_dismissedAt_idx" ON "DriftEvent"("rsId", "dismissedAt");

-- CreateIndex
CREATE UNIQUE INDEX "Client_clientId_key" ON "Client"("clientId");

-- CreateIndex
CREATE INDEX "Client_tenantId_idx" ON "Client"("tenantId");

-- CreateIndex
CREATE UNIQUE INDEX "Role_tenantId_name_key" ON "Role"("tenantId", "name");

-- CreateIndex
CREATE INDEX "RoleGrant_resourceServerId_idx" ON "RoleGrant"("resourceServerId");

-- CreateIndex
CREATE UNIQUE INDEX "RoleGrant_roleId_resourceServerId_scopeKey_key" ON "RoleGrant"("roleId", "resourceServerId", "scopeKey");

-- CreateIndex
CREATE UNIQUE INDEX "Group_tenantId_name_key" ON "Group"("tenantId", "name");

-- CreateIndex
CREATE INDEX "GroupMember_userId_idx" ON "GroupMember"("userId");

-- CreateIndex
CREATE INDEX "RoleBinding_tenantId_subjectType_subjectId_idx" ON "RoleBinding"("tenantId", "subjectType", "subjectId");

-- CreateIndex
CREATE INDEX "RoleBinding_roleId_idx" ON "RoleBinding"("roleId");

-- CreateIndex
CREATE UNIQUE INDEX "AuthorizationCode_consentId_key" ON "AuthorizationCode"("consentId");

-- CreateIndex
CREATE UNIQUE INDEX "RefreshToken_tokenHash_key" ON "RefreshToken"("tokenHash");

-- CreateIndex
CREATE INDEX "RefreshToken_familyId_idx" ON "RefreshToken"("familyId");

-- CreateIndex
CREATE INDEX "RevokedToken_expiresAt_idx" ON "RevokedToken"("expiresAt");

-- CreateIndex
CREATE INDEX "RevokedFamily_expiresAt_idx" ON "RevokedFamily"("expiresAt");
