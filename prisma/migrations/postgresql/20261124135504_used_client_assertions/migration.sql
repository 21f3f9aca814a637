-- CreateTable
CREATE TABLE "UsedClientAssertion" (
    "key" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "UsedClientAssertion_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "UsedClientAssertion_expiresAt_idx" ON "UsedClientAssertion"("expiresAt");
