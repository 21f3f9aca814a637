-- CreateTable
CREATE TABLE "EvidenceExport" (
    "id" TEXT NOT NULL,
    "tenantId" TEXT NOT NULL,
    "resourceServerId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "manifest" TEXT NOT NULL,
    "manifestSha256" TEXT NOT NULL,
    "jws" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "EvidenceExport_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EvidenceChunk" (
    "exportId" TEXT NOT NULL,
    "file" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "content" TEXT NOT NULL,

    CONSTRAINT "EvidenceChunk_pkey" PRIMARY KEY ("exportId","file","seq")
);

-- CreateIndex
CREATE INDEX "EvidenceExport_tenantId_resourceServerId_createdAt_idx" ON "EvidenceExport"("tenantId", "resourceServerId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "EvidenceExport_resourceServerId_seq_key" ON "EvidenceExport"("resourceServerId", "seq");
