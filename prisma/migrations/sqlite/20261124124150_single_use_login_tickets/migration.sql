-- CreateTable
CREATE TABLE "UsedLoginTicket" (
    "nonce" TEXT NOT NULL PRIMARY KEY,
    "expiresAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "UsedLoginTicket_expiresAt_idx" ON "UsedLoginTicket"("expiresAt");
