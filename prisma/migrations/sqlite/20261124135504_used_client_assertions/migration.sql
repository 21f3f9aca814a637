-- CreateTable
CREATE TABLE "UsedClientAssertion" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "expiresAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "UsedClientAssertion_expiresAt_idx" ON "UsedClientAssertion"("expiresAt");
