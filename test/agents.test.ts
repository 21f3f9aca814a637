// AI agents (/svc/sdkmgr/agents, docs/agents.md): registration with credentials shown once, the
// servers and roles an agent may use, tokens for any of them by `resource`, last activity, and
// disabling at once (tokens inactive on the next introspection, on every instance); isolation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, type Harness } from "./helpers/harness";
import { createServer, type ServerFixture } from "./helpers/oauth-fixtures";
import { boot } from "../src/boot";
import { createApp } from "../src/app";
import { createLogger } from "../src/shared/logger";

const onPostgres = !!process.env.TEST_DATABASE_URL;

let h: Harness;
let files: ServerFixture;
let notes: ServerFixture;
let readers: string;
let writers: string;

beforeAll(async () => {
  h = await startToolgate();
  files = await createServer(h, { scopes_supported: ["files:read", "files:write"] });
  notes = await createServer(h, { scopes_supported: ["notes:read"] });
  readers = (await h.admin("POST", "/svc/authmgr/roles", { name: "Readers", grants: [{ resource_server_id: files.id, scope_ids: ["files:read"] }, { resource_server_id: notes.id, scope_ids: ["notes:read"] }] })).body.id;
  writers = (await h.admin("POST", "/svc/authmgr/roles", { name: "Writers", grants: [{ resource_server_id: files.id, scope_ids: ["files:read", "files:write"] }] })).body.id;
});
afterAll(async () => h?.close());

async function token(clientId: string, secret: string, resource: string, scope?: string) {
  return h.request("POST", "/oauth/token", { basic: [clientId, secret], form: { grant_type: "client_credentials", resource, ...(scope ? { scope } : {}) } });
}
async function introspect(server: ServerFixture, accessToken: string) {
  return (await h.request("POST", "/oauth/introspect", { basic: [server.id, server.introspection_secret], form: { token: accessToken } })).body;
}

describe("agents", () => {
  let agent: any;

  it("registers an agent: credentials once, its owner, kind and reach", async () => {
    const r = await h.admin("POST", "/svc/sdkmgr/agents", {
      name: "Release bot",
      kind: "autonomous",
      description: "tags releases",
      owner_user_id: h.ownerId,
      access: [{ resource_server_id: files.id, role_id: writers }],
    });
    expect(r.status, r.text).toBe(201);
    agent = r.body;
    expect(agent).toMatchObject({
      name: "Release bot",
      kind: "autonomous",
      owner_user_id: h.ownerId,
      status: "active",
      client_status: "approved",
      client_id: expect.stringMatching(/^tgc_/),
      client_secret: expect.any(String),
      last_activity_at: null,
      connections: [{ resource_server_id: files.id, resource_url: files.resource_url, roles: [{ role_id: writers, role_name: "Writers" }] }],
    });
    const got = await h.admin("GET", `/svc/sdkmgr/agents/${agent.id}`);
    expect(got.body).not.toHaveProperty("client_secret");
    expect(got.text).not.toContain(agent.client_secret);
    expect((await h.admin("POST", "/svc/sdkmgr/agents", { name: "Release bot", kind: "assistant" })).status).toBe(409);
    expect((await h.admin("POST", "/svc/sdkmgr/agents", { name: "x", kind: "robot" })).body.error).toMatch(/^kind: /);
    expect((await h.admin("POST", "/svc/sdkmgr/agents", { name: "y", kind: "assistant", access: [{ resource_server_id: files.id, role_id: h.ownerId }] })).body.error).toBe(`access: no role ${h.ownerId} in this workspace`);
  });

  it("gets tokens for the servers its roles cover, with their scopes, and for no other", async () => {
    const t = await token(agent.client_id, agent.client_secret, files.resource_url);
    expect(t.status, t.text).toBe(200);
    expect(t.body.scope.split(" ").sort()).toEqual(["files:read", "files:write"]);
    expect(await introspect(files, t.body.access_token)).toMatchObject({ active: true, client_id: agent.client_id, scope: "files:read files:write" });
    expect((await token(agent.client_id, agent.client_secret, files.resource_url, "files:read")).body.scope).toBe("files:read");
    expect((await token(agent.client_id, agent.client_secret, notes.resource_url, "notes:read")).body.error).toBe("invalid_scope");
    expect((await token(agent.client_id, agent.client_secret, "https://elsewhere.example.test/mcp")).body.error).toBe("invalid_target");
    // Without a resource a workspace-wide client names no server.
    expect((await h.request("POST", "/oauth/token", { basic: [agent.client_id, agent.client_secret], form: { grant_type: "client_credentials" } })).body.error).toBe("invalid_target");
  });

  it("changes what it may use; the change narrows live tokens", async () => {
    const t = (await token(agent.client_id, agent.client_secret, files.resource_url)).body.access_token;
    const r = await h.admin("PUT", `/svc/sdkmgr/agents/${agent.id}/access`, { access: [{ resource_server_id: files.id, role_id: readers }, { resource_server_id: notes.id, role_id: readers }] });
    expect(r.status, r.text).toBe(200);
    expect(r.body.connections.map((c: any) => c.resource_server_id).sort()).toEqual([files.id, notes.id].sort());
    expect(await introspect(files, t)).toMatchObject({ active: true, scope: "files:read" });
    expect((await token(agent.client_id, agent.client_secret, notes.resource_url)).body.scope).toBe("notes:read");
  });

  it("shows its last activity", async () => {
    await h.services.oauth.lastUsed.flush();
    const got = await h.admin("GET", `/svc/sdkmgr/agents/${agent.id}`);
    expect(got.body.last_activity_at).toMatch(/^20/);
    const list = await h.admin("GET", "/svc/sdkmgr/agents");
    expect(list.body).toMatchObject({ count: 1, next_cursor: null, items: [{ id: agent.id, name: "Release bot" }] });
  });

  it("is disabled at once: no token, and its tokens inactive on the next introspection; enabled again", async () => {
    const t = (await token(agent.client_id, agent.client_secret, files.resource_url)).body.access_token;
    expect((await introspect(files, t)).active).toBe(true);
    const off = await h.admin("POST", `/svc/sdkmgr/agents/${agent.id}/disable`);
    expect(off.body).toMatchObject({ status: "disabled", client_status: "disabled", disabled_at: expect.any(String) });
    expect(await introspect(files, t)).toEqual({ active: false });
    expect((await token(agent.client_id, agent.client_secret, files.resource_url)).body.error).toBe("invalid_client");
    const events = await h.admin("GET", `/svc/v1/workspaces/${h.workspaceId}/audit-events?action=agent.disabled`);
    expect(events.body.items[0]).toMatchObject({ target: { type: "agent", id: agent.id }, actor: { type: "user", id: h.ownerId } });
    expect((await h.admin("POST", `/svc/sdkmgr/agents/${agent.id}/enable`)).body.status).toBe("active");
    expect((await introspect(files, t)).active).toBe(true);
  });

  it("rotates its secret (shown once; the old one stops at once) and is deleted (its client revoked)", async () => {
    const rotated = await h.admin("POST", `/svc/sdkmgr/agents/${agent.id}/rotate-secret`);
    expect(rotated.body.client_secret).not.toBe(agent.client_secret);
    expect((await token(agent.client_id, agent.client_secret, files.resource_url)).status).toBe(401);
    const t = await token(agent.client_id, rotated.body.client_secret, files.resource_url);
    expect(t.status).toBe(200);
    expect((await h.admin("DELETE", `/svc/sdkmgr/agents/${agent.id}`)).status).toBe(204);
    expect(await introspect(files, t.body.access_token)).toEqual({ active: false });
    expect((await h.admin("GET", `/svc/sdkmgr/agents/${agent.id}`)).status).toBe(404);
    const rows = await h.db.auditEvent.findMany({ where: { tenantId: h.workspaceId } });
    const text = rows.map((r) => r.summary).join("\n");
    expect(text).not.toContain(agent.client_secret);
    expect(text).not.toContain(rotated.body.client_secret);
  });

  it("keeps another workspace's agents out of reach (404), and readonly auditors read only", async () => {
    const mine = (await h.admin("POST", "/svc/sdkmgr/agents", { name: "Mine", kind: "assistant" })).body;
    const other = await h.createWorkspace("agents-other@example.test");
    const as = (m: string, p: string, json?: unknown) => h.request(m, p, { token: other.token, json });
    for (const [m, p, body] of [
      ["GET", `/svc/sdkmgr/agents/${mine.id}`],
      ["PATCH", `/svc/sdkmgr/agents/${mine.id}`, { name: "Theirs" }],
      ["POST", `/svc/sdkmgr/agents/${mine.id}/disable`],
      ["POST", `/svc/sdkmgr/agents/${mine.id}/rotate-secret`],
      ["PUT", `/svc/sdkmgr/agents/${mine.id}/access`, { access: [] }],
      ["DELETE", `/svc/sdkmgr/agents/${mine.id}`],
    ] as const) {
      expect((await as(m, p, body)).status, `${m} ${p}`).toBe(404);
    }
    expect((await as("GET", "/svc/sdkmgr/agents")).body.items).toEqual([]);
    // Their roles and servers are not ours to grant.
    expect((await as("POST", "/svc/sdkmgr/agents", { name: "Sneaky", kind: "assistant", access: [{ resource_server_id: files.id, role_id: readers }] })).status).toBe(400);
    const ws = h.workspaceId;
    const u = await h.admin("POST", `/uflow/v2/tenants/${ws}/users`, { email: "agents-auditor@example.test", username: "aa", password: "a long enough password 5" });
    await h.admin("PATCH", `/uflow/v2/tenants/${ws}/memberships/${u.body.id}`, { membership_type: "readonly_auditor" });
    const auditor = await h.login("agents-auditor@example.test", "a long enough password 5", ws);
    expect((await h.request("GET", `/svc/sdkmgr/agents/${mine.id}`, { token: auditor })).status).toBe(200);
    expect((await h.request("POST", `/svc/sdkmgr/agents/${mine.id}/disable`, { token: auditor })).status).toBe(403);
  });
});

describe.runIf(onPostgres)("two instances", () => {
  it("a disabled agent's token is inactive at the other instance's next introspection", async () => {
    const second = await boot(h.config);
    const b = await createApp({ config: h.config, db: second.db, masterKey: second.masterKey, logger: createLogger("silent") });
    await b.start();
    try {
      const agent = (await h.admin("POST", "/svc/sdkmgr/agents", { name: "Twin", kind: "autonomous", access: [{ resource_server_id: files.id, role_id: readers }] })).body;
      const t = (await token(agent.client_id, agent.client_secret, files.resource_url)).body.access_token;
      const atB = async () => b.services.oauth.introspectionEndpoint.introspect({ basic: { id: files.id, secret: files.introspection_secret }, params: () => ({ token: t }) });
      expect((await atB()).active).toBe(true); // B has the client cached now
      await h.admin("POST", `/svc/sdkmgr/agents/${agent.id}/disable`);
      await b.catchUp();
      expect(await atB()).toEqual({ active: false });
    } finally {
      await b.close();
      await second.db.$disconnect();
    }
  });
});
