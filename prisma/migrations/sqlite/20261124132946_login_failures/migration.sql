-- CreateTable
CREATE TABLE "LoginFailure" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "scope" TEXT NOT NULL,
    "accountKey" TEXT,
    "address" TEXT,
    "failures" INTEGER NOT NULL,
    "lastFailureAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "LoginFailure_lastFailureAt_idx" ON "LoginFailure"("lastFailureAt");

-- CreateIndex
CREATE INDEX "LoginFailure_accountKey_idx" ON "LoginFailure"("accountKey");

-- CreateIndex
CREATE INDEX "LoginFailure_address_idx" ON "LoginFailure"("address");
