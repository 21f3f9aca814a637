// The migration API (the spec's gateway module /svc/migration/; src/modules/operations): the state
// of the shipped migrations on the running database, and applying pending ones with the runner of
// start-up and `toolgate migrate`: owner only, one runner at a time, a clear 409 when another holds
// the lock. Both databases; on PostgreSQL also two instances racing, and a lock held elsewhere.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { startToolgate, type Harness } from "./helpers/harness";
import { boot } from "../src/boot";
import { createApp, type App } from "../src/app";
import { createLogger } from "../src/shared/logger";
import { createExpressServer } from "../src/http-server";
import { MIGRATIONS_ROOT, PG_ADVISORY_LOCK_KEY } from "../src/storage";

const onPostgres = !!process.env.TEST_DATABASE_URL;
const kind = onPostgres ? "postgresql" : "sqlite";
const PROBE = "20991231000000_api_probe";

// The shipped migrations plus one the running database has not seen: the API finds it pending.
const root = mkdtempSync(join(tmpdir(), "toolgate-migrations-"));
cpSync(MIGRATIONS_ROOT, root, { recursive: true });
mkdirSync(join(root, kind, PROBE));
writeFileSync(join(root, kind, PROBE, "migration.sql"), `CREATE TABLE "ApiMigrationProbe" ("id" TEXT NOT NULL PRIMARY KEY);\n`);

let h: Harness;
beforeAll(async () => {
  h = await startToolgate({ migrationsRoot: root });
});
afterAll(async () => {
  await h?.close();
  rmSync(root, { recursive: true, force: true });
});

const list = (token = h.adminToken) => h.request("GET", "/svc/migration/migrations", { token });
const run = (token = h.adminToken, database = "master") => h.request("POST", `/svc/migration/migrations/${database}/run`, { token });

describe("the migration API", () => {
  it("is the owner's: admins, auditors and members get 403, no token 401, and nothing runs", async () => {
    expect((await h.request("GET", "/svc/migration/migrations")).status).toBe(401);
    for (const role of ["admin", "readonly_auditor", "member"]) {
      const email = `${role}@migrations.test`;
      const user = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email, username: role, password: "a long password 1" });
      await h.admin("PATCH", `/uflow/v2/tenants/${h.workspaceId}/memberships/${user.body.id}`, { membership_type: role });
      const token = await h.login(email, "a long password 1");
      expect((await list(token)).body, role).toEqual({ error: "this action needs the owner role in the workspace" });
      expect((await run(token)).status, role).toBe(403);
    }
    expect((await list()).body.pending).toBe(1);
  });

  it("lists every shipped migration with its state on this database, the new one pending", async () => {
    const r = await list();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ database: "master", provider: kind, pending: 1, next_cursor: null });
    expect(r.body.count).toBe(r.body.items.length);
    const last = r.body.items.at(-1);
    expect(last).toEqual({ name: PROBE, state: "pending", applied_at: null });
    expect(r.body.items.slice(0, -1).every((m: any) => m.state === "applied" && typeof m.applied_at === "string")).toBe(true);
  });

  it("runs the pending ones once, then has nothing to run; an unknown database is 404", async () => {
    expect((await run(h.adminToken, "tenants")).status).toBe(404);
    const first = await run();
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ applied: [PROBE], pending: 0 });
    expect(first.body.items.at(-1)).toMatchObject({ name: PROBE, state: "applied" });
    expect(await h.db.$queryRawUnsafe(`SELECT COUNT(*) AS n FROM "ApiMigrationProbe"`)).toEqual([{ n: expect.anything() }]);
    const again = await run();
    expect(again.body).toMatchObject({ applied: [], pending: 0 });
  });
});

/** A second instance of Toolgate on the same database, in this process, with the same migrations folder. */
async function secondInstance(): Promise<{ url: string; app: App; close(): Promise<void> }> {
  const { db, masterKey } = await boot(h.config);
  const app = await createApp({ config: h.config, db, masterKey, logger: createLogger("silent"), migrationsRoot: root });
  const { server, serve } = createExpressServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  serve(app.app);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    app,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
      await db.$disconnect();
    },
  };
}

describe.runIf(onPostgres)("one runner at a time across instances (PostgreSQL)", () => {
  const PROBE2 = "20991231000001_api_probe_two";

  it("answers 409 naming the cause while another runner holds the lock, and runs once it is free", async () => {
    mkdirSync(join(root, kind, PROBE2));
    writeFileSync(join(root, kind, PROBE2, "migration.sql"), `CREATE TABLE "ApiMigrationProbeTwo" ("id" TEXT NOT NULL PRIMARY KEY);\n`);
    const holder = new pg.Client({ connectionString: h.config.database.url });
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(${PG_ADVISORY_LOCK_KEY})`); // e.g. `toolgate migrate` of another host
      const refused = await run();
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({ error: "another instance is applying migrations to this database now; ask again when it has finished" });
      expect((await list()).body.items.at(-1)).toMatchObject({ name: PROBE2, state: "pending" });
      await holder.query(`SELECT pg_advisory_unlock(${PG_ADVISORY_LOCK_KEY})`);
      expect((await run()).body).toMatchObject({ applied: [PROBE2], pending: 0 });
    } finally {
      await holder.end();
    }
  });

  it("two instances racing to run: each pending migration is applied by exactly one of them", async () => {
    const names = ["20991231000002_race_a", "20991231000003_race_b", "20991231000004_race_c"];
    for (const [i, name] of names.entries()) {
      mkdirSync(join(root, kind, name));
      writeFileSync(join(root, kind, name, "migration.sql"), `CREATE TABLE "RaceProbe${i}" ("id" TEXT NOT NULL PRIMARY KEY);\n`);
    }
    const b = await secondInstance();
    try {
      const answers = await Promise.all([
        run(),
        fetch(`${b.url}/svc/migration/migrations/master/run`, { method: "POST", headers: { authorization: `Bearer ${h.adminToken}` } }).then(async (r) => ({ status: r.status, body: await r.json() })),
      ]);
      for (const a of answers) expect([200, 409]).toContain(a.status);
      const applied = answers.flatMap((a) => (a.status === 200 ? (a.body.applied as string[]) : []));
      // Whatever the interleaving, no migration ran twice; a runner refused mid-way leaves the rest pending.
      expect(new Set(applied).size).toBe(applied.length);
      const rest = await run();
      expect([...applied, ...rest.body.applied].sort()).toEqual(names);
      const rows = await h.db.$queryRawUnsafe<Array<{ name: string }>>(`SELECT "name" FROM "_toolgate_migrations" WHERE "name" LIKE '2099%race%'`);
      expect(rows.map((r) => r.name).sort()).toEqual(names);
    } finally {
      await b.close();
    }
  });
});
