-- AlterTable (SQLite adds a column with a constant default in place: no table rebuild, which would cascade to FederatedIdentity)
ALTER TABLE "IdentityProvider" ADD COLUMN "tokenEndpointAuthMethod" TEXT NOT NULL DEFAULT 'client_secret_basic';
