-- DropIndex
DROP INDEX "GroupMember_tenantId_userId_idx";

-- DropIndex
DROP INDEX "RoleBinding_tenantId_subjectType_subjectId_idx";

-- DropIndex
DROP INDEX "RoleBinding_roleId_idx";

-- CreateIndex
CREATE INDEX "Membership_tenantId_status_userId_idx" ON "Membership"("tenantId", "status", "userId");

-- CreateIndex
CREATE INDEX "EndUserState_tenantId_userId_status_idx" ON "EndUserState"("tenantId", "userId", "status");

-- CreateIndex
CREATE INDEX "Tool_tenantId_resourceServerId_isPublic_idx" ON "Tool"("tenantId", "resourceServerId", "isPublic");

-- CreateIndex
CREATE INDEX "Client_tenantId_resourceServerId_status_idx" ON "Client"("tenantId", "resourceServerId", "status");

-- CreateIndex
CREATE INDEX "GroupMember_tenantId_userId_groupId_idx" ON "GroupMember"("tenantId", "userId", "groupId");

-- CreateIndex
CREATE INDEX "RoleBinding_subject_idx" ON "RoleBinding"("tenantId", "subjectType", "subjectId", "roleId", "expiresAt", "scopeType", "scopeId");

-- CreateIndex
CREATE INDEX "RoleBinding_role_idx" ON "RoleBinding"("roleId", "subjectType", "tenantId", "subjectId", "expiresAt", "scopeType", "scopeId");

-- CreateIndex
CREATE INDEX "RoleBinding_tenantId_expiresAt_idx" ON "RoleBinding"("tenantId", "expiresAt");
