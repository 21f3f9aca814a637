-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Workspace" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "requireAdminMfa" BOOLEAN NOT NULL DEFAULT false,
    "endUserPasswordSignIn" BOOLEAN NOT NULL DEFAULT true
);
INSERT INTO "new_Workspace" ("createdAt", "id", "name", "requireAdminMfa") SELECT "createdAt", "id", "name", "requireAdminMfa" FROM "Workspace";
DROP TABLE "Workspace";
ALTER TABLE "new_Workspace" RENAME TO "Workspace";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
