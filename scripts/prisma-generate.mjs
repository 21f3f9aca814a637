// Generates the Prisma clients for both providers from the one schema (prisma/schema.prisma).
// Runs on `npm install` (postinstall) and `npm run db:generate`. Offline-safe: Prisma's CLI only
// checks for a native schema-engine binary it never uses for `generate`, and that download
// cannot happen on machines without internet, so we point the check at an existing file
// (see docs/migrations.md).
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = readFileSync(join(root, "prisma/schema.prisma"), "utf8");

// The PostgreSQL copy: same models, provider line changed, client written to its own folder,
// no Pothos generator (the Pothos types come from the SQLite copy; the models are identical).
const pgSchema = source
  .replace(/provider\s*=\s*"sqlite"/, 'provider = "postgresql"')
  .replace(/output\s*=\s*"\.\.\/src\/generated\/sqlite"/, 'output   = "../../src/generated/pg"')
  .replace(/generator pothos \{[^}]*\}\n/, "");
if (pgSchema === source) throw new Error("could not derive the PostgreSQL schema");
mkdirSync(join(root, "prisma/.generated"), { recursive: true });
writeFileSync(join(root, "prisma/.generated/postgresql.prisma"), pgSchema);

const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? "/bin/true", PRISMA_HIDE_UPDATE_MESSAGE: "1" };
const prisma = join(root, "node_modules/prisma/build/index.js");
for (const schema of ["prisma/schema.prisma", "prisma/.generated/postgresql.prisma"]) {
  execFileSync(process.execPath, [prisma, "generate", "--schema", schema], { cwd: root, env, stdio: "inherit" });
}
