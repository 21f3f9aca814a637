-- AlterTable
ALTER TABLE "AuthorizationCode" ADD COLUMN "authTime" DATETIME;
ALTER TABLE "AuthorizationCode" ADD COLUMN "factors" JSONB;
ALTER TABLE "AuthorizationCode" ADD COLUMN "nonce" TEXT;
ALTER TABLE "AuthorizationCode" ADD COLUMN "sessionId" TEXT;

-- AlterTable
ALTER TABLE "RefreshToken" ADD COLUMN "authTime" DATETIME;
ALTER TABLE "RefreshToken" ADD COLUMN "factors" JSONB;
ALTER TABLE "RefreshToken" ADD COLUMN "sessionId" TEXT;

-- CreateTable
CREATE TABLE "BrowserSession" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tokenHash" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "factors" JSONB NOT NULL,
    "authTime" DATETIME NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "lastSeenAt" DATETIME NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "endedAt" DATETIME
);

-- CreateTable
CREATE TABLE "RememberedConsent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "resourceServerId" TEXT NOT NULL,
    "scopes" JSONB NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "TotpFactor" (
    "userId" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "secretEnc" TEXT NOT NULL,
    "confirmedAt" DATETIME,
    "lastStep" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "RecoveryCode" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "codeHash" TEXT NOT NULL,
    "usedAt" DATETIME,
    "createdAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "PasskeyCredential" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "publicKey" TEXT NOT NULL,
    "counter" BIGINT NOT NULL,
    "transports" JSONB NOT NULL,
    "deviceType" TEXT NOT NULL,
    "backedUp" BOOLEAN NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "lastUsedAt" DATETIME
);

-- CreateTable
CREATE TABLE "WebAuthnChallenge" (
    "challenge" TEXT NOT NULL PRIMARY KEY,
    "purpose" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "userId" TEXT,
    "expiresAt" DATETIME NOT NULL
);

-- The column is added in place: Prisma's "RedefineTables" would DROP "Workspace", which most
-- tables reference ON DELETE CASCADE, and PRAGMA foreign_keys=OFF is a no-op inside the migration's
-- transaction, so the drop would delete their rows (test/migrations.test.ts forbids it).
ALTER TABLE "Workspace" ADD COLUMN "requireAdminMfa" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE UNIQUE INDEX "BrowserSession_tokenHash_key" ON "BrowserSession"("tokenHash");

-- CreateIndex
CREATE INDEX "BrowserSession_tenantId_userId_idx" ON "BrowserSession"("tenantId", "userId");

-- CreateIndex
CREATE INDEX "BrowserSession_expiresAt_idx" ON "BrowserSession"("expiresAt");

-- CreateIndex
CREATE INDEX "RememberedConsent_tenantId_userId_idx" ON "RememberedConsent"("tenantId", "userId");

-- CreateIndex
CREATE UNIQUE INDEX "RememberedConsent_userId_clientId_resourceServerId_key" ON "RememberedConsent"("userId", "clientId", "resourceServerId");

-- CreateIndex
CREATE UNIQUE INDEX "RecoveryCode_codeHash_key" ON "RecoveryCode"("codeHash");

-- CreateIndex
CREATE INDEX "RecoveryCode_userId_idx" ON "RecoveryCode"("userId");

-- CreateIndex
CREATE INDEX "PasskeyCredential_userId_idx" ON "PasskeyCredential"("userId");

-- CreateIndex
CREATE INDEX "WebAuthnChallenge_expiresAt_idx" ON "WebAuthnChallenge"("expiresAt");
