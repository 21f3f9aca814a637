-- AlterTable
ALTER TABLE "IdentityProvider" ADD COLUMN     "tokenEndpointAuthMethod" TEXT NOT NULL DEFAULT 'client_secret_basic';
