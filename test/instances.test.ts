// Several processes on one database (docs/decisions/0001-per-entry-caches.md).
// PostgreSQL: this test process (instance A, the harness) and a spawned server process (instance B)
// share the database; every kind of write that changes a hot-path answer, made through A, reaches
// B's next introspection or sdk-policy answer through LISTEN/NOTIFY. In-process second instances
// show recovery after the listening connection dies, and fail-closed answers while the database is
// unreachable. SQLite: one server per file, and the CLI's writes still reach the running server.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import pg from "pg";
import * as oauth from "oauth4webapi";
import { startToolgate, type Harness } from "./helpers/harness";
import { runCli, startServerProcess, type RunningServer } from "./helpers/process";
import { eventually } from "./helpers/eventually";
import { clientCredentials, createClient, createServer, discover, insecure, type ClientFixture } from "./helpers/oauth-fixtures";
import { readyServer, type ReadyServer } from "./helpers/lifecycle-flow";
import { createTestDatabase, type TestDatabase } from "./helpers/database";
import { boot } from "../src/boot";
import { createApp, type App } from "../src/app";
import { createLogger } from "../src/shared/logger";

// Spawned servers compile TypeScript at start: give them room on a busy machine.
vi.setConfig({ testTimeout: 120_000 });

const onPostgres = !!process.env.TEST_DATABASE_URL;

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;
}

async function introspectAt(base: string, rs: { id: string; secret: string }, token: string): Promise<{ status: number; body: any }> {
  const r = await fetch(`${base}/oauth/introspect`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(rs.id, rs.secret) },
    body: new URLSearchParams({ token }),
  });
  return { status: r.status, body: await r.json() };
}

async function secondInProcess(h: Harness): Promise<App & { db: Awaited<ReturnType<typeof boot>>["db"] }> {
  const { db, masterKey } = await boot(h.config);
  const app = await createApp({ config: h.config, db, masterKey, logger: createLogger("silent") });
  await app.start();
  return Object.assign(app, { db });
}

describe.runIf(onPostgres)("several instances on PostgreSQL", () => {
  let h: Harness;
  let b: RunningServer;
  let rs: ReadyServer;
  let as: oauth.AuthorizationServer;
  let client: ClientFixture;
  let userId: string;
  let bindingId: string;
  const admin = (m: string, p: string, json?: unknown) => h.admin(m, p, json);

  beforeAll(async () => {
    h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } });
    b = await startServerProcess({
      DATABASE_URL: h.config.database.url,
      TOOLGATE_MASTER_KEY: h.config.masterKey!.toString("hex"),
      TOOLGATE_PUBLIC_URL: h.config.publicUrl, // one issuer, two instances behind it
      TOOLGATE_DATA_DIR: h.config.dataDir,
      TOOLGATE_LOG_LEVEL: "warn",
    });
    as = await discover(h);
    rs = await readyServer(h);
    client = await createClient(h, rs.id, { allowed_scopes: ["files:read", "files:write"] });
    const role = await admin("POST", "/svc/authmgr/roles", { name: "reader", grants: [{ resource_server_id: rs.id, scope_ids: ["files:read"] }] });
    userId = (await admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: "multi@example.test", username: "multi" })).body.id;
    bindingId = (await admin("POST", `/uflow/v2/users/${userId}/role-bindings`, { tenant_id: h.workspaceId, role_id: role.body.id })).body.id;
  });
  afterAll(async () => {
    await b?.stop();
    await rs?.mcp.close();
    await h?.close();
  });

  /** A user token as the sign-in grants mint it (the flow itself is tested in signin.test.ts). */
  async function userToken(): Promise<string> {
    const registered = (await h.services.oauth.clientRegistry.get(client.client_id))!;
    const t = await h.services.oauth.issuer.issue({
      subject: userId,
      subjectType: "user",
      clientId: registered.clientId,
      tenantId: h.workspaceId,
      audience: rs.body.resource_url,
      scopes: ["files:read"],
      lifetimeSeconds: 600,
      familyId: `fam-${Date.now()}`,
    });
    return t.access_token;
  }

  it("a token revoked through A introspects inactive on B", async () => {
    const t = (await clientCredentials(as, client)).access_token;
    expect((await introspectAt(b.url, rs, t)).body.active).toBe(true); // cached on B now
    const c: oauth.Client = { client_id: client.client_id };
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, c, oauth.ClientSecretBasic(client.client_secret), t, insecure));
    await eventually(async () => (await introspectAt(b.url, rs, t)).body.active === false, "revocation reaches B");
  });

  it("binding removal and end-user suspension through A narrow and end B's answers", async () => {
    const t = await userToken();
    expect((await introspectAt(b.url, rs, t)).body).toMatchObject({ active: true, scope: "files:read" });
    expect((await admin("DELETE", `/uflow/v2/role-bindings/${bindingId}`)).status).toBe(204);
    await eventually(async () => (await introspectAt(b.url, rs, t)).body.scope === "", "binding removal reaches B");
    expect((await admin("POST", `/uflow/v2/tenants/${h.workspaceId}/end-users/${userId}/suspend`, {})).status).toBe(200);
    await eventually(async () => (await introspectAt(b.url, rs, t)).body.active === false, "suspension reaches B");
    expect((await admin("POST", `/uflow/v2/tenants/${h.workspaceId}/end-users/${userId}/reactivate`, {})).status).toBe(200);
    await eventually(async () => (await introspectAt(b.url, rs, t)).body.active === true, "reactivation reaches B");
  });

  it("a group membership removal and a role's narrowed grants through A reach B", async () => {
    const role = await admin("POST", "/svc/authmgr/roles", { name: "group-writer", grants: [{ resource_server_id: rs.id, scope_ids: ["files:read", "files:write"] }] });
    const groupId = (await admin("POST", "/uflow/v2/groups", { name: "multi-group" })).body.id;
    const member = (await admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: "grouped@example.test", username: "grouped" })).body.id;
    expect((await admin("POST", `/uflow/v2/groups/${groupId}/members`, { user_id: member })).status).toBe(201);
    expect((await admin("POST", `/uflow/v2/groups/${groupId}/role-bindings`, { tenant_id: h.workspaceId, role_id: role.body.id })).status).toBe(201);
    const saved = userId;
    userId = member;
    const t = await userToken();
    userId = saved;
    // The token asked for files:read only; the role narrows to files:write, then the member leaves.
    expect((await introspectAt(b.url, rs, t)).body).toMatchObject({ active: true, scope: "files:read" });
    const narrowed = await admin("PUT", `/svc/authmgr/roles/${role.body.id}`, { name: "group-writer", grants: [{ resource_server_id: rs.id, scope_ids: ["files:write"] }] });
    expect(narrowed.status).toBe(200);
    await eventually(async () => (await introspectAt(b.url, rs, t)).body.scope === "", "the role's narrowed grants reach B");
    await admin("PUT", `/svc/authmgr/roles/${role.body.id}`, { name: "group-writer", grants: [{ resource_server_id: rs.id, scope_ids: ["files:read"] }] });
    await eventually(async () => (await introspectAt(b.url, rs, t)).body.scope === "files:read", "the role's widened grants reach B");
    expect((await admin("DELETE", `/uflow/v2/groups/${groupId}/members/${member}`)).status).toBe(204);
    await eventually(async () => (await introspectAt(b.url, rs, t)).body.scope === "", "the group membership removal reaches B");
  });

  it("client revocation through A ends its tokens on B", async () => {
    const victim = await createClient(h, rs.id);
    const t = (await clientCredentials(as, victim)).access_token;
    expect((await introspectAt(b.url, rs, t)).body.active).toBe(true);
    expect((await admin("POST", `/svc/resource-servers/${rs.id}/clients/${victim.client_id}/revoke`)).status).toBe(200);
    await eventually(async () => (await introspectAt(b.url, rs, t)).body.active === false, "client revocation reaches B");
  });

  it("a policy change through A is B's next sdk-policy answer", async () => {
    const policyAt = async () =>
      (await (await fetch(`${b.url}/svc/resource-servers/${rs.id}/sdk-policy`, { headers: { authorization: basic(rs.id, rs.secret) } })).json()) as any;
    expect((await policyAt()).scope_matrix.read_file).toEqual(["files:read"]);
    const map = await admin("PUT", `/svc/resource-servers/${rs.id}/tool-scope-map`, { mappings: [{ tool_name: "read_file", scope_ids: ["files:write"] }] });
    expect(map.status).toBe(200);
    await eventually(async () => JSON.stringify((await policyAt()).scope_matrix.read_file) === '["files:write"]', "policy change reaches B");
  });

  it("introspection-secret rotation through A refuses the old secret on B (runs last: it changes rs's secret)", async () => {
    const t = (await clientCredentials(as, client)).access_token;
    expect((await introspectAt(b.url, rs, t)).status).toBe(200);
    const rotated = await admin("POST", `/svc/resource-servers/${rs.id}/rotate-introspection-secret`);
    expect(rotated.status).toBe(200);
    await eventually(async () => (await introspectAt(b.url, rs, t)).status === 401, "rotation reaches B");
    expect((await introspectAt(b.url, { id: rs.id, secret: rotated.body.introspection_secret }, t)).body.active).toBe(true);
  });

  it("an instance whose listening connection dies reconnects, drops its caches and hears changes again", async () => {
    const other = await secondInProcess(h);
    try {
      const victim = await createClient(h, rs.id);
      const secret = (await admin("POST", `/svc/resource-servers/${rs.id}/rotate-introspection-secret`)).body.introspection_secret as string;
      rs.secret = secret;
      const t = (await clientCredentials(as, victim)).access_token;
      const judge = () => other.services.oauth.introspection.introspect({ id: rs.id, tenantId: h.workspaceId, resourceUrl: rs.body.resource_url }, t);
      expect((await judge()).active).toBe(true); // cached there
      const pid = other.channel!.listenerPid!;
      const reconnected = other.services.changes.nextArrival(); // a reconnect resets the caches
      const killer = new pg.Client({ connectionString: h.config.database.url });
      await killer.connect();
      await killer.query("SELECT pg_terminate_backend($1)", [pid]);
      await killer.end();
      await reconnected;
      // The reset is announced when the new connection listens; the health flag follows at once,
      // but on a loaded machine not always before this line runs.
      await eventually(async () => other.services.changes.healthy.connected, "the listener is connected again");
      expect(other.channel!.listenerPid).not.toBe(pid);
      // A change after the reconnect arrives as usual.
      expect((await admin("POST", `/svc/resource-servers/${rs.id}/clients/${victim.client_id}/revoke`)).status).toBe(200);
      await other.catchUp();
      expect(await judge()).toEqual({ active: false });
    } finally {
      await other.close();
      await other.db.$disconnect();
    }
  });
});

describe.runIf(onPostgres)("fail closed while the database is unreachable (PostgreSQL)", () => {
  let h: Harness;
  let dbName: string;
  let admin: pg.Client;
  beforeAll(async () => {
    h = await startToolgate();
    dbName = new URL(h.config.database.url).pathname.slice(1);
    admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.query(`ALTER DATABASE "${dbName}" ALLOW_CONNECTIONS true`).catch(() => undefined);
    await admin.end();
    await h?.close();
  });

  it("introspection answers inactive, the token endpoint 503 temporarily_unavailable, /readyz 503; all recover", async () => {
    const as = await discover(h);
    const rs = await createServer(h);
    const caller = { id: rs.id, secret: rs.introspection_secret };
    const client = await createClient(h, rs.id);
    const t = (await clientCredentials(as, client)).access_token;
    expect((await introspectAt(h.url, caller, t)).body.active).toBe(true); // everything it needs is cached
    const unverified = (await clientCredentials(as, await createClient(h, rs.id))).access_token; // never introspected
    const unused = await createClient(h, rs.id); // never seen by the token endpoint

    // Cut the database off: no new connections, every open one terminated.
    await admin.query(`ALTER DATABASE "${dbName}" ALLOW_CONNECTIONS false`);
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [dbName]);
    // The listener noticed: entries older than TOOLGATE_CACHE_STALE_MS would be reloaded before use.
    await eventually(async () => !h.services.changes.healthy.connected, "the listener notices");
    // What is not cached cannot be verified: inactive, and no token, never a guess.
    expect(await introspectAt(h.url, caller, unverified)).toEqual({ status: 200, body: { active: false } });
    const refused = await fetch(`${h.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(unused.client_id, unused.client_secret) },
      body: new URLSearchParams({ grant_type: "client_credentials" }),
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("cache-control")).toBe("no-store");
    expect(await refused.json()).toEqual({ error: "temporarily_unavailable", error_description: "the authorization server cannot answer right now; try again shortly" });
    const ready = await fetch(`${h.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: "unavailable", database: "unreachable", cache_invalidation: "disconnected" });

    await admin.query(`ALTER DATABASE "${dbName}" ALLOW_CONNECTIONS true`);
    await eventually(async () => (await fetch(`${h.url}/readyz`)).status === 200, "recovery", 15_000);
    expect((await introspectAt(h.url, caller, unverified)).body.active).toBe(true);
    expect((await clientCredentials(as, unused)).token_type).toBe("bearer");
  });
});

describe.runIf(!onPostgres)("one server per SQLite file", () => {
  let db: TestDatabase;
  let server: RunningServer | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await server?.stop();
    await db.drop();
  });
  const env = () => ({ TOOLGATE_DATA_DIR: db.dataDir, DATABASE_URL: db.url, TOOLGATE_ADMIN_EMAIL: "lock@example.test", TOOLGATE_ADMIN_PASSWORD: "a long password here" });

  it("a second server on the same file refuses to start, naming the first; the CLI's writes reach the running one", async () => {
    server = await startServerProcess(env());
    const second = await startServerProcess(env()).catch((e: Error) => e);
    expect(second).toBeInstanceOf(Error);
    expect((second as Error).message).toMatch(/another Toolgate server \(pid \d+\) already serves .*toolgate\.db/);
    expect((second as Error).message).toContain("run several instances on PostgreSQL");

    // `toolgate keys rotate` writes the same file from another process: the server publishes the
    // new key promptly (its watch notices the outside write), without a restart.
    const kids = async () => ((await (await fetch(`${server!.url}/oauth/jwks`)).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);
    expect(await kids()).toHaveLength(2); // an ES256 and an RS256 key
    const rotated = runCli(["keys", "rotate"], { TOOLGATE_DATA_DIR: db.dataDir, DATABASE_URL: db.url });
    expect(rotated.status, rotated.stderr).toBe(0);
    const { kid } = JSON.parse(rotated.stdout) as { kid: string };
    await eventually(async () => (await kids()).includes(kid), "the CLI's new key is published by the running server");
  });
});
