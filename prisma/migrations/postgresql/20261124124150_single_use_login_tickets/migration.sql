-- CreateTable
CREATE TABLE "UsedLoginTicket" (
    "nonce" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "UsedLoginTicket_pkey" PRIMARY KEY ("nonce")
);

-- CreateIndex
CREATE INDEX "UsedLoginTicket_expiresAt_idx" ON "UsedLoginTicket"("expiresAt");
