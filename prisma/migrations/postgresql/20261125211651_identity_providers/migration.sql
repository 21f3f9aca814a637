-- CreateTable
CREATE TABLE "IdentityProvider" (
    "id" TEXT NOT NULL,
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
    "discoveredAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "IdentityProvider_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "FederatedIdentity" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "providerId" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "email" TEXT,
    "lastAmr" JSONB,
    "lastAcr" TEXT,
    "lastSignInAt" TIMESTAMP(3) NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "FederatedIdentity_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "IdentityProvider_tenantId_name_key" ON "IdentityProvider"("tenantId", "name");

-- CreateIndex
CREATE INDEX "FederatedIdentity_tenantId_userId_idx" ON "FederatedIdentity"("tenantId", "userId");

-- CreateIndex
CREATE UNIQUE INDEX "FederatedIdentity_providerId_subject_key" ON "FederatedIdentity"("providerId", "subject");

-- AddForeignKey
ALTER TABLE "FederatedIdentity" ADD CONSTRAINT "FederatedIdentity_providerId_fkey" FOREIGN KEY ("providerId") REFERENCES "IdentityProvider"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FederatedIdentity" ADD CONSTRAINT "FederatedIdentity_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
