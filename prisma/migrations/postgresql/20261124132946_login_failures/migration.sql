-- CreateTable
CREATE TABLE "LoginFailure" (
    "key" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "accountKey" TEXT,
    "address" TEXT,
    "failures" INTEGER NOT NULL,
    "lastFailureAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "LoginFailure_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "LoginFailure_lastFailureAt_idx" ON "LoginFailure"("lastFailureAt");

-- CreateIndex
CREATE INDEX "LoginFailure_accountKey_idx" ON "LoginFailure"("accountKey");

-- CreateIndex
CREATE INDEX "LoginFailure_address_idx" ON "LoginFailure"("address");
