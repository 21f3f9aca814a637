import { afterAll, describe, expect, it } from "vitest";
import { cpSync, mkdtempSync, readFileSync, appendFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { auditTrailOf, createPrismaClient, migrate, MIGRATIONS_ROOT, type Db } from "../src/storage";
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

  it("split a user who belongs to several workspaces into one account per workspace, moving each workspace's rows", async () => {
    const { db, kind } = await freshDb();
    // The migrations before users became private to a workspace (decision 0017).
    const root = mkdtempSync(join(tmpdir(), "toolgate-migrations-"));
    cpSync(MIGRATIONS_ROOT, root, { recursive: true });
    const later = readdirSync(join(root, kind)).filter((d) => d >= "20261124123252_users_private_to_workspace");
    for (const d of later) rmSync(join(root, kind, d), { recursive: true });
    await migrate(db, kind, root);
    // These fixtures are written into the old schema, which has no audit tables yet.
    const resumeAudit = auditTrailOf(db).suspendForOlderSchema();

    const at = new Date("2026-01-01T00:00:00Z");
    const p = (n: number) => (kind === "sqlite" ? "?" : `$${n}`);
    // In SQL, with that schema's columns: later migrations add Workspace columns the client knows and these tables lack.
    const workspace = async (id: string, name: string, createdAt: Date) => {
      await db.$executeRawUnsafe(`INSERT INTO "Workspace" ("id", "name", "createdAt") VALUES (${p(1)}, ${p(2)}, ${p(3)})`, id, name, createdAt);
      return { id };
    };
    const a = await workspace("aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "A", at);
    const b = await workspace("bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb", "B", new Date(at.getTime() + 1000));
    const insertUser = (id: string, email: string) =>
      db.$executeRawUnsafe(
        `INSERT INTO "User" ("id", "email", "username", "passwordHash", "createdAt", "updatedAt") SELECT ${p(1)}, ${p(2)}, 'name', 'hash-of-' || ${p(3)}, "createdAt", "createdAt" FROM "Workspace" WHERE "id" = ${p(4)}`,
        id, email, email, a.id,
      );
    const shared = "11111111-1111-4111-8111-111111111111";
    const onlyB = "22222222-2222-4222-8222-222222222222";
    await insertUser(shared, "shared@example.test");
    await insertUser(onlyB, "only-b@example.test");
    await db.membership.create({ data: { tenantId: a.id, userId: shared, membershipType: "owner", createdAt: at } });
    await db.membership.create({ data: { tenantId: b.id, userId: shared, membershipType: "contractor", createdAt: new Date(at.getTime() + 5000) } });
    await db.membership.create({ data: { tenantId: b.id, userId: onlyB, createdAt: at } });
    const groupB = await db.group.create({ data: { tenantId: b.id, name: "g" } });
    await db.groupMember.create({ data: { groupId: groupB.id, userId: shared, tenantId: b.id } });
    const roleA = await db.role.create({ data: { tenantId: a.id, name: "r" } });
    const roleB = await db.role.create({ data: { tenantId: b.id, name: "r" } });
    await db.roleBinding.create({ data: { tenantId: a.id, roleId: roleA.id, subjectType: "user", subjectId: shared } });
    await db.roleBinding.create({ data: { tenantId: b.id, roleId: roleB.id, subjectType: "user", subjectId: shared } });
    await db.endUserState.create({ data: { tenantId: b.id, userId: shared, status: "suspended" } });
    await db.refreshToken.create({
      data: { tokenHash: "h1", familyId: "f1", tenantId: b.id, clientId: "c", userId: shared, scope: "", resource: "https://r.example.test", expiresAt: new Date(at.getTime() + 3_600_000) },
      select: { id: true },
    });

    expect(await migrate(db, kind)).toContain("20261124123252_users_private_to_workspace");
    resumeAudit();

    const accounts = await db.user.findMany({ where: { email: "shared@example.test" }, orderBy: { tenantId: "asc" } });
    expect(accounts).toHaveLength(2);
    const home = accounts.find((u) => u.tenantId === a.id)!;
    const copy = accounts.find((u) => u.tenantId === b.id)!;
    expect(home.id).toBe(shared); // the oldest membership keeps the id
    expect(copy.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(copy).toMatchObject({ passwordHash: "hash-of-shared@example.test", username: "name" });
    expect(await db.user.findUniqueOrThrow({ where: { id: onlyB } })).toMatchObject({ tenantId: b.id });

    // Nothing lost (no cascade from the User table), B's rows now name the copy, A's the original.
    expect(await db.membership.count()).toBe(3);
    expect(await db.membership.findUniqueOrThrow({ where: { tenantId_userId: { tenantId: a.id, userId: shared } } })).toMatchObject({ membershipType: "owner" });
    expect(await db.membership.findUniqueOrThrow({ where: { tenantId_userId: { tenantId: b.id, userId: copy.id } } })).toMatchObject({ membershipType: "contractor" });
    expect((await db.groupMember.findMany()).map((m) => m.userId)).toEqual([copy.id]);
    expect((await db.roleBinding.findMany({ orderBy: { tenantId: "asc" } })).map((r) => [r.tenantId, r.subjectId]).sort()).toEqual(
      [[a.id, shared], [b.id, copy.id]].sort(),
    );
    expect(await db.endUserState.findFirstOrThrow()).toMatchObject({ tenantId: b.id, userId: copy.id, status: "suspended" });
    expect(await db.refreshToken.findFirstOrThrow()).toMatchObject({ userId: copy.id });
    // The new uniqueness: one email per workspace.
    await expect(db.user.create({ data: { tenantId: a.id, email: "shared@example.test", username: "again" } })).rejects.toThrow();
  });

  it("never rebuild, on SQLite, a table that other tables reference (the drop would cascade to their rows)", () => {
    // The driver enforces foreign keys, and inside the migration transaction PRAGMA
    // foreign_keys=OFF is a no-op: Prisma's "RedefineTables" (create new_T, copy, DROP TABLE T,
    // rename) then deletes every row that references T with ON DELETE CASCADE. Such a change must
    // be written in place (ALTER TABLE ... ADD COLUMN), as 20261124123252 does for "User".
    const dir = join(MIGRATIONS_ROOT, "sqlite");
    const referenced = new Set<string>();
    const offences: string[] = [];
    for (const name of readdirSync(dir).filter((d) => !d.endsWith(".prisma")).sort()) {
      const sql = readFileSync(join(dir, name, "migration.sql"), "utf8");
      for (const m of sql.matchAll(/DROP TABLE "(\w+)"/g)) if (referenced.has(m[1]!)) offences.push(`${name}: drops "${m[1]}"`);
      for (const m of sql.matchAll(/REFERENCES "(\w+)"/g)) referenced.add(m[1]!);
    }
    expect(referenced.has("Workspace")).toBe(true);
    expect(offences).toEqual([]);
  });
});
