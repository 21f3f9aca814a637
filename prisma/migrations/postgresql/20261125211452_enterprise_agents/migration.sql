-- CreateTable
CREATE TABLE "IdJagTrust" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "jwksUri" TEXT,
    "jwks" JSONB,
    "allowedAlgs" JSONB NOT NULL,
    "clockSkewS" INTEGER NOT NULL DEFAULT 30,
    "maxAssertionLifetimeS" INTEGER NOT NULL DEFAULT 600,
    "subjectClaim" TEXT NOT NULL DEFAULT 'sub',
    "jitCreateUsers" BOOLEAN NOT NULL DEFAULT false,
    "idpTenant" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "IdJagTrust_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "IdJagSubject" (
    "id" TEXT NOT NULL,
    "trustId" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "IdJagSubject_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WorkloadTrust" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "issuer" TEXT,
    "trustDomain" TEXT,
    "jwksUri" TEXT,
    "jwks" JSONB,
    "audience" TEXT NOT NULL,
    "allowedAlgs" JSONB NOT NULL,
    "clockSkewS" INTEGER NOT NULL DEFAULT 30,
    "maxLifetimeS" INTEGER NOT NULL DEFAULT 3600,
    "rules" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "WorkloadTrust_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AccessRequest" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "resourceServerId" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "trustId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "scopesRequested" JSONB NOT NULL,
    "scopesGranted" JSONB,
    "roleId" TEXT,
    "reason" TEXT,
    "familyId" TEXT NOT NULL,
    "decidedBy" TEXT,
    "decidedAt" TIMESTAMP(3),
    "lastConnectedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AccessRequest_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "IdJagTrust_tenantId_issuer_key" ON "IdJagTrust"("tenantId", "issuer");

-- CreateIndex
CREATE INDEX "IdJagSubject_tenantId_idx" ON "IdJagSubject"("tenantId");

-- CreateIndex
CREATE UNIQUE INDEX "IdJagSubject_trustId_subject_key" ON "IdJagSubject"("trustId", "subject");

-- CreateIndex
CREATE INDEX "WorkloadTrust_tenantId_idx" ON "WorkloadTrust"("tenantId");

-- CreateIndex
CREATE UNIQUE INDEX "WorkloadTrust_tenantId_name_key" ON "WorkloadTrust"("tenantId", "name");

-- CreateIndex
CREATE INDEX "AccessRequest_tenantId_createdAt_id_idx" ON "AccessRequest"("tenantId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "AccessRequest_resourceServerId_createdAt_id_idx" ON "AccessRequest"("resourceServerId", "createdAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "AccessRequest_clientId_userId_resourceServerId_key" ON "AccessRequest"("clientId", "userId", "resourceServerId");
