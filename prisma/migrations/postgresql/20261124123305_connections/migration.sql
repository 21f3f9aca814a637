-- AlterTable
ALTER TABLE "Client" ADD COLUMN     "registrationMetadata" JSONB,
ADD COLUMN     "registrationTokenHash" TEXT,
ALTER COLUMN "tenantId" DROP NOT NULL;

-- CreateTable
CREATE TABLE "Connection" (
    "id" TEXT NOT NULL,
    "clientRowId" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "resourceServerId" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'approved',
    "scopesGranted" JSONB NOT NULL,
    "firstConnectedAt" TIMESTAMP(3) NOT NULL,
    "lastConnectedAt" TIMESTAMP(3) NOT NULL,
    "revokedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Connection_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Connection_resourceServerId_status_idx" ON "Connection"("resourceServerId", "status");

-- CreateIndex
CREATE INDEX "Connection_tenantId_idx" ON "Connection"("tenantId");

-- CreateIndex
CREATE UNIQUE INDEX "Connection_clientId_resourceServerId_key" ON "Connection"("clientId", "resourceServerId");

-- CreateIndex
CREATE INDEX "ResourceServer_resourceUrl_idx" ON "ResourceServer"("resourceUrl");

-- CreateIndex
CREATE INDEX "Client_registrationMode_createdAt_idx" ON "Client"("registrationMode", "createdAt");

-- AddForeignKey
ALTER TABLE "Connection" ADD CONSTRAINT "Connection_clientRowId_fkey" FOREIGN KEY ("clientRowId") REFERENCES "Client"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Connection" ADD CONSTRAINT "Connection_resourceServerId_fkey" FOREIGN KEY ("resourceServerId") REFERENCES "ResourceServer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Connection" ADD CONSTRAINT "Connection_tenantId_fkey" FOREIGN KEY ("tenantId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;
