import { afterAll, describe, expect, it } from "vitest";
import { cpSync, mkdtempSync, readFileSync, appendFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPrismaClient, migrate, MIGRATIONS_ROOT, type Db } from "../src/storage";
import { createTestDatabase, type TestDatabase } from "./helpers/database";

const opened: { db: Db; t: TestDatabase }[] = [];
afterAll(async () => {
  for (const { db, t } of opened) {
    await db.$disconnect();
    await t.drop();
  }
});

async function freshDb() {
  const t = await createTestDatabase();
  const db = await createPrismaClient({ kind: t.kind, url: t.url });
  opened.push({ db, t });
  return { db, kind: t.kind };
}

describe("offline migrations", () => {
  it("apply once on a fresh database and are a no-op the second time", async () => {
    const { db, kind } = await freshDb();
    const first = await migrate(db, kind);
    expect(first.length).toBeGreaterThan(0);
    expect(await migrate(db, kind)).toEqual([]);
    expect(await db.workspace.count()).toBe(0); // tables exist
  });

  it("refuse a migration that was edited after it was applied", async () => {
    const { db, kind } = await freshDb();
    const root = mkdtempSync(join(tmpdir(), "toolgate-migrations-"));
    cpSync(MIGRATIONS_ROOT, root, { recursive: true });
    await migrate(db, kind, root);
    const dir = join(root, kind);
    const first = readdirSync(dir).filter((d) => !d.endsWith(".prisma")).sort()[0]!;
    appendFileSync(join(dir, first, "migration.sql"), "\n-- edited\n");
    await expect(migrate(db, kind, root)).rejects.toThrow(/changed after it was applied/);
  });

  it("are up to date with prisma/schema.prisma (run `npm run db:migration -- <name>` after a schema change)", () => {
    const schema = readFileSync(join(MIGRATIONS_ROOT, "../schema.prisma"), "utf8");
    expect(readFileSync(join(MIGRATIONS_ROOT, "sqlite/schema.snapshot.prisma"), "utf8")).toBe(schema);
    expect(readFileSync(join(MIGRATIONS_ROOT, "postgresql/schema.snapshot.prisma"), "utf8")).toBe(
      schema.replace(/provider\s*=\s*"sqlite"/, 'provider = "postgresql"'),
    );
  });
});
