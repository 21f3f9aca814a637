-- CreateIndex
CREATE INDEX "Membership_tenantId_createdAt_id_idx" ON "Membership"("tenantId", "createdAt", "id");
