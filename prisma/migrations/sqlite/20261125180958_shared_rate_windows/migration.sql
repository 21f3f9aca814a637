-- CreateTable
CREATE TABLE "RateWindow" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "count" INTEGER NOT NULL,
    "endsAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "RateWindow_endsAt_idx" ON "RateWindow"("endsAt");
