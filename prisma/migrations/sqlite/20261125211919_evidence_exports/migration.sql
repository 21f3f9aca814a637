-- CreateTable
CREATE TABLE "EvidenceExport" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenantId" TEXT NOT NULL,
    "resourceServerId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "manifest" TEXT NOT NULL,
    "manifestSha256" TEXT NOT NULL,
    "jws" TEXT NOT NULL,
    "createdBy" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "EvidenceChunk" (
    "exportId" TEXT NOT NULL,
    "file" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "content" TEXT NOT NULL,

    PRIMARY KEY ("exportId", "file", "seq")
);

-- CreateIndex
CREATE INDEX "EvidenceExport_tenantId_resourceServerId_createdAt_idx" ON "EvidenceExport"("tenantId", "resourceServerId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "EvidenceExport_resourceServerId_seq_key" ON "EvidenceExport"("resourceServerId", "seq");
