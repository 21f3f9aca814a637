// The scope resolver (src/modules/rbac/scope-resolver.ts): what a subject may hold now on one
// server, answered from memory and invalidated by every write that can change the answer. Writes go
// through the real HTTP API; the resolver is asked in process, as introspection asks it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../src/shared/clock";
import { ChangeSet } from "../src/storage";
import { NOT_CACHED } from "../src/shared/entry-cache";
import { type AccessSubject } from "../src/modules/rbac";
import { boot } from "../src/boot";
import { createApp } from "../src/app";
import { createLogger } from "../src/shared/logger";
import { insertClient } from "./helpers/fixtures";
import { startToolgate, type Harness } from "./helpers/harness";

let h: Harness;
const clock = new ManualClock(new Date("2026-06-01T08:00:00.000Z"));
let files: string; // files:read, files:write
let mail: string; // mail:send, mail:read
let reader: string; // role: files:read on files, mail:read on mail
let writer: string; // role: files:write on files
beforeAll(async () => {
  h = await startToolgate({ clock });
  files = await server("https://files.example.test", ["files:read", "files:write"]);
  mail = await server("https://mail.example.test", ["mail:send", "mail:read"]);
  reader = await role("reader", [
    { resource_server_id: files, scope_ids: ["files:read"] },
    { resource_server_id: mail, scope_ids: ["mail:read"] },
  ]);
  writer = await role("writer", [{ resource_server_id: files, scope_ids: ["files:write"] }]);
});
afterAll(async () => h?.close());

async function server(url: string, scopes: string[]): Promise<string> {
  return (await h.admin("POST", "/svc/resource-servers", { name: url, public_base_url: url, protected_base_path: "/mcp", scopes_supported: scopes })).body.id;
}
async function role(name: string, grants: unknown[]): Promise<string> {
  return (await h.admin("POST", "/svc/authmgr/roles", { name, grants })).body.id;
}
let seq = 0;
async function member(): Promise<string> {
  return (await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: `r${++seq}@example.test`, username: `r${seq}` })).body.id;
}
async function group(): Promise<string> {
  return (await h.admin("POST", "/uflow/v2/groups", { name: `rg-${++seq}` })).body.id;
}
async function bind(path: string, body: Record<string, unknown> = {}): Promise<string> {
  const r = await h.admin("POST", path, { tenant_id: h.workspaceId, role_id: reader, ...body });
  expect(r.status).toBe(201);
  return r.body.id;
}

const resolver = () => h.services.rbac.resolver;
const user = (id: string): AccessSubject => ({ type: "user", id });
/** Sorted scopes the user holds now on the server. */
const scopesOf = async (userId: string, resourceServerId: string, tenantId = h.workspaceId) =>
  [...(await resolver().scopesFor({ tenantId, resourceServerId, subject: user(userId) }))].sort();
const active = (userId: string) => resolver().isActive({ tenantId: h.workspaceId, subject: user(userId) });

describe("what a user holds", () => {
  it("nothing without bindings; a tenant-wide binding grants the role's scopes on every server", async () => {
    const u = await member();
    expect(await active(u)).toBe(true);
    expect(await scopesOf(u, files)).toEqual([]);
    await bind(`/uflow/v2/users/${u}/role-bindings`);
    expect(await scopesOf(u, files)).toEqual(["files:read"]);
    expect(await scopesOf(u, mail)).toEqual(["mail:read"]);
  });

  it("a user created by an admin, and a bootstrapped owner, are active members at once", async () => {
    expect(await active(await member())).toBe(true);
    const ws = await h.createWorkspace(`boot${++seq}@example.test`);
    expect(await resolver().isActive({ tenantId: ws.workspaceId, subject: user(ws.userId) })).toBe(true);
    expect(await resolver().isActive({ tenantId: h.workspaceId, subject: user(ws.userId) })).toBe(false);
  });

  it('scope_type "*" is tenant-wide too; resource_server applies to that server only', async () => {
    const u = await member();
    await bind(`/uflow/v2/users/${u}/role-bindings`, { scope_type: "resource_server", scope_id: mail });
    expect(await scopesOf(u, files)).toEqual([]);
    expect(await scopesOf(u, mail)).toEqual(["mail:read"]);
    await bind(`/uflow/v2/users/${u}/role-bindings`, { role_id: writer, scope_type: "*" });
    expect(await scopesOf(u, files)).toEqual(["files:write"]);
  });

  it("unions direct and group bindings", async () => {
    const u = await member();
    const g = await group();
    await h.admin("POST", `/uflow/v2/groups/${g}/members`, { user_id: u });
    await bind(`/uflow/v2/users/${u}/role-bindings`);
    await bind(`/uflow/v2/groups/${g}/role-bindings`, { role_id: writer });
    expect(await scopesOf(u, files)).toEqual(["files:read", "files:write"]);
  });

  it("narrow() keeps the token's scopes the user still holds, in the token's order", async () => {
    const u = await member();
    await bind(`/uflow/v2/users/${u}/role-bindings`);
    await bind(`/uflow/v2/users/${u}/role-bindings`, { role_id: writer });
    const q = { tenantId: h.workspaceId, resourceServerId: files, subject: user(u) };
    expect(await resolver().narrow(q, ["files:write", "files:admin", "files:read"])).toEqual(["files:write", "files:read"]);
  });

  it("effectiveBindings() and roleScopes() explain the answer (for simulations' decision traces)", async () => {
    const u = await member();
    const onMail = await bind(`/uflow/v2/users/${u}/role-bindings`, { scope_type: "resource_server", scope_id: mail });
    const tenantWide = await bind(`/uflow/v2/users/${u}/role-bindings`, { role_id: writer });
    await bind(`/uflow/v2/users/${u}/role-bindings`, { expires_at: new Date(clock.now().getTime() + 1).toISOString() });
    clock.advance(1);
    const q = (resourceServerId: string) => ({ tenantId: h.workspaceId, resourceServerId, subject: user(u) });
    expect((await resolver().effectiveBindings(q(files))).map((b) => b.id)).toEqual([tenantWide]);
    expect((await resolver().effectiveBindings(q(mail))).map((b) => b.id).sort()).toEqual([onMail, tenantWide].sort());
    expect(await resolver().roleScopes(reader, mail)).toEqual(["mail:read"]);
    expect(await resolver().roleScopes(writer, mail)).toEqual([]);
  });

  it("a binding in another workspace counts only there, and never for our user", async () => {
    const u = await member();
    const other = await h.createWorkspace(`other${++seq}@example.test`);
    const as = (method: string, path: string, json?: unknown) => h.request(method, path, { token: other.token, json });
    const theirServer = (await as("POST", "/svc/resource-servers", { name: "T", public_base_url: "https://t.example.test", protected_base_path: "/", scopes_supported: ["t:read"] })).body.id;
    const theirRole = (await as("POST", "/svc/authmgr/roles", { name: "t", grants: [{ resource_server_id: theirServer, scope_ids: ["t:read"] }] })).body.id;
    // Our user is unknown there (decision 0017): no binding can name them.
    expect((await as("POST", `/uflow/v2/users/${u}/role-bindings`, { tenant_id: other.workspaceId, role_id: theirRole })).status).toBe(404);
    expect((await as("POST", `/uflow/v2/users/${other.userId}/role-bindings`, { tenant_id: other.workspaceId, role_id: theirRole })).status).toBe(201);
    expect(await scopesOf(other.userId, theirServer, other.workspaceId)).toEqual(["t:read"]);
    // Asked for our workspace (even naming their server), nothing counts.
    expect(await scopesOf(other.userId, theirServer)).toEqual([]);
    expect(await scopesOf(u, theirServer, other.workspaceId)).toEqual([]);
    expect(await scopesOf(u, files)).toEqual([]);
  });
});

describe("invalidation: every write that can change the answer", () => {
  it("binding removed", async () => {
    const u = await member();
    const b = await bind(`/uflow/v2/users/${u}/role-bindings`);
    expect(await scopesOf(u, files)).toEqual(["files:read"]);
    await h.admin("DELETE", `/uflow/v2/role-bindings/${b}`);
    expect(await scopesOf(u, files)).toEqual([]);
  });

  it("binding expired: held until just before expires_at, gone at expires_at (no write needed)", async () => {
    const u = await member();
    const g = await group();
    await h.admin("POST", `/uflow/v2/groups/${g}/members`, { user_id: u });
    const expiresAt = new Date(clock.now().getTime() + 30_000);
    await bind(`/uflow/v2/users/${u}/role-bindings`, { expires_at: expiresAt.toISOString() });
    await bind(`/uflow/v2/groups/${g}/role-bindings`, { role_id: writer, expires_at: new Date(expiresAt.getTime() + 1).toISOString() });
    clock.set(new Date(expiresAt.getTime() - 1));
    expect(await scopesOf(u, files)).toEqual(["files:read", "files:write"]);
    clock.set(expiresAt);
    expect(await scopesOf(u, files)).toEqual(["files:write"]);
    clock.advance(1);
    expect(await scopesOf(u, files)).toEqual([]);
  });

  it("group member removed, and group deleted", async () => {
    const u = await member();
    const g = await group();
    await h.admin("POST", `/uflow/v2/groups/${g}/members`, { user_id: u });
    await bind(`/uflow/v2/groups/${g}/role-bindings`);
    expect(await scopesOf(u, files)).toEqual(["files:read"]);
    await h.admin("DELETE", `/uflow/v2/groups/${g}/members/${u}`);
    expect(await scopesOf(u, files)).toEqual([]);
    await h.admin("POST", `/uflow/v2/groups/${g}/members`, { user_id: u });
    expect(await scopesOf(u, files)).toEqual(["files:read"]);
    await h.admin("DELETE", `/uflow/v2/groups/${g}`);
    expect(await scopesOf(u, files)).toEqual([]);
  });

  it.each(["suspended", "left", "invited"])("membership %s: holds nothing and is inactive; active again restores", async (status) => {
    const u = await member();
    await bind(`/uflow/v2/users/${u}/role-bindings`);
    const path = `/uflow/v2/tenants/${h.workspaceId}/memberships/${u}`;
    expect((await h.admin("PATCH", path, { status })).status).toBe(200);
    expect(await active(u)).toBe(false);
    expect(await scopesOf(u, files)).toEqual([]);
    expect(await resolver().narrow({ tenantId: h.workspaceId, resourceServerId: files, subject: user(u) }, ["files:read"])).toEqual([]);
    await h.admin("PATCH", path, { status: "active" });
    expect(await active(u)).toBe(true);
    expect(await scopesOf(u, files)).toEqual(["files:read"]);
  });

  it("membership removed: nothing, and re-adding does not bring the old binding back", async () => {
    const u = await member();
    await bind(`/uflow/v2/users/${u}/role-bindings`);
    await h.admin("DELETE", `/uflow/v2/tenants/${h.workspaceId}/memberships/${u}`);
    expect(await active(u)).toBe(false);
    expect(await scopesOf(u, files)).toEqual([]);
    await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/memberships`, { user_id: u });
    expect(await active(u)).toBe(true);
    expect(await scopesOf(u, files)).toEqual([]);
  });

  it("a membership created as invited holds nothing until made active", async () => {
    const other = { userId: await h.userWithoutMembership(`invitee${++seq}@example.test`) };
    await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/memberships`, { user_id: other.userId, status: "invited" });
    await bind(`/uflow/v2/users/${other.userId}/role-bindings`);
    expect(await scopesOf(other.userId, files)).toEqual([]);
    await h.admin("PATCH", `/uflow/v2/tenants/${h.workspaceId}/memberships/${other.userId}`, { status: "active" });
    expect(await scopesOf(other.userId, files)).toEqual(["files:read"]);
  });

  it("end user suspended and reactivated (suspend/reactivate and PATCH status)", async () => {
    const u = await member();
    await bind(`/uflow/v2/users/${u}/role-bindings`);
    const path = `/uflow/v2/tenants/${h.workspaceId}/end-users/${u}`;
    await h.admin("POST", `${path}/suspend`, { reason: "abuse" });
    expect(await active(u)).toBe(false);
    expect(await scopesOf(u, files)).toEqual([]);
    await h.admin("POST", `${path}/reactivate`);
    expect(await active(u)).toBe(true);
    expect(await scopesOf(u, files)).toEqual(["files:read"]);
    await h.admin("PATCH", path, { status: "suspended" });
    expect(await scopesOf(u, files)).toEqual([]);
    await h.admin("PATCH", path, { status: "active" });
    expect(await scopesOf(u, files)).toEqual(["files:read"]);
  });

  it("role grants changed (PUT) and role deleted after its bindings", async () => {
    const u = await member();
    const r = await role(`changing-${++seq}`, [{ resource_server_id: files, scope_ids: ["files:read"] }]);
    const b = await bind(`/uflow/v2/users/${u}/role-bindings`, { role_id: r });
    expect(await scopesOf(u, files)).toEqual(["files:read"]);
    await h.admin("PUT", `/svc/authmgr/roles/${r}`, { name: `changing-${seq}`, grants: [{ resource_server_id: files, scope_ids: ["files:write"] }, { resource_server_id: mail, scope_ids: ["mail:send"] }] });
    expect(await scopesOf(u, files)).toEqual(["files:write"]);
    expect(await scopesOf(u, mail)).toEqual(["mail:send"]);
    await h.admin("PUT", `/svc/authmgr/roles/${r}`, { name: `changing-${seq}`, grants: [] });
    expect(await scopesOf(u, files)).toEqual([]);
    await h.admin("DELETE", `/uflow/v2/role-bindings/${b}`);
    expect((await h.admin("DELETE", `/svc/authmgr/roles/${r}`)).status).toBe(204);
  });
});

describe("invalidation by other modules' writes", () => {
  it("deleting a scope from a server removes it from every role's grants at once", async () => {
    const u = await member();
    const rsId = await server(`https://del${++seq}.example.test`, ["d:read", "d:write"]);
    const r = await role(`deleter-${seq}`, [{ resource_server_id: rsId, scope_ids: ["d:read", "d:write"] }]);
    await bind(`/uflow/v2/users/${u}/role-bindings`, { role_id: r });
    expect(await scopesOf(u, rsId)).toEqual(["d:read", "d:write"]);
    expect((await h.admin("DELETE", `/svc/resource-servers/${rsId}/scopes/d:write`)).status).toBe(204);
    expect(await scopesOf(u, rsId)).toEqual(["d:read"]);
    expect((await h.admin("GET", `/svc/authmgr/roles/${r}`)).body.grants).toEqual([{ resource_server_id: rsId, scope_ids: ["d:read"] }]);
  });
});

describe("machine clients", () => {
  it("hold their allowed scopes plus what their service-account bindings grant", async () => {
    const c = await insertClient(h, { clientId: `svc-${++seq}`, tenantId: h.workspaceId, clientName: "svc", allowedScopes: ["files:read"] });
    const subject: AccessSubject = { type: "client", clientId: c.clientId, internalId: c.id, allowedScopes: ["files:read"] };
    const q = { tenantId: h.workspaceId, resourceServerId: files, subject };
    expect([...(await resolver().scopesFor(q))]).toEqual(["files:read"]);
    expect(await resolver().isActive(q)).toBe(true);
    const b = await bind(`/svc/clientms/clients/${c.clientId}/role-bindings`, { role_id: writer });
    expect([...(await resolver().scopesFor(q))].sort()).toEqual(["files:read", "files:write"]);
    // Another workspace's query for the same client_id gets no binding grants.
    expect([...(await resolver().scopesFor({ ...q, tenantId: "00000000-0000-4000-8000-000000000000" }))]).toEqual(["files:read"]);
    await h.admin("DELETE", `/uflow/v2/role-bindings/${b}`);
    expect([...(await resolver().scopesFor(q))]).toEqual(["files:read"]);
  });
});

describe("introspection seam (tokens' SubjectScopeSource)", () => {
  it("answers null for an inactive user and the held scopes otherwise; a client gets its allowed set", async () => {
    const u = await member();
    await bind(`/uflow/v2/users/${u}/role-bindings`);
    const client = { id: "00000000-0000-4000-8000-00000000a990", clientId: "app", allowedScopeSet: new Set(["files:read", "files:write"]) };
    const token = { sub: u, tenant_id: h.workspaceId, sub_type: "user" };
    expect([...(await resolver().allowedScopes(token, client, { id: files }))!]).toEqual(["files:read"]);
    await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/end-users/${u}/suspend`, {});
    expect(await resolver().allowedScopes(token, client, { id: files })).toBeNull();
    const machine = { sub: "app", tenant_id: h.workspaceId };
    expect(await resolver().allowedScopes(machine, client, { id: files })).toBe(client.allowedScopeSet);
    expect(await resolver().allowedScopes({ ...machine, sub_type: "robot" }, client, { id: files })).toBeNull();
  });

  it("answers synchronously once every fact it needs is cached", async () => {
    const u = await member();
    await bind(`/uflow/v2/users/${u}/role-bindings`);
    const g = await group();
    await h.admin("POST", `/uflow/v2/groups/${g}/members`, { user_id: u });
    await bind(`/uflow/v2/groups/${g}/role-bindings`, { role_id: writer });
    const client = { id: "00000000-0000-4000-8000-00000000a991", clientId: "app", allowedScopeSet: new Set(["files:read", "files:write"]) };
    const token = { sub: u, tenant_id: h.workspaceId, sub_type: "user" };
    expect(resolver().peekAllowedScopes(token, client, { id: files })).toBe(NOT_CACHED);
    // Loads member, then bindings (direct and the group's), then roles.
    expect([...(await resolver().allowedScopes(token, client, { id: files }))!].sort()).toEqual(["files:read", "files:write"]);
    const fromMemory = resolver().peekAllowedScopes(token, client, { id: files });
    expect([...(fromMemory as ReadonlySet<string>)].sort()).toEqual(["files:read", "files:write"]);
  });
});

describe("hot path: answers from memory, dropped by the change bus", () => {
  it("a row changed behind the unit of work is not seen until its change arrives (no query per call)", async () => {
    const u = await member();
    const b = await bind(`/uflow/v2/users/${u}/role-bindings`);
    expect(await scopesOf(u, files)).toEqual(["files:read"]);
    // A raw statement is not a tracked write: the cached entry is not told.
    await h.db.$executeRaw`DELETE FROM "RoleBinding" WHERE "id" = ${b}`;
    expect(await scopesOf(u, files)).toEqual(["files:read"]);
    const missed = new ChangeSet();
    missed.add(`bindings:${h.workspaceId}:user:${u}`);
    h.services.changes.receive(missed); // what another instance's change looks like here
    expect(await scopesOf(u, files)).toEqual([]);
  });

  it("a second instance on the same database catches up as changes commit", async () => {
    const { db, masterKey } = await boot(h.config);
    const second = await createApp({ config: h.config, db, masterKey, logger: createLogger("silent"), clock });
    await second.start();
    try {
      const u = await member();
      const ask = async () => [...(await second.services.rbac.resolver.scopesFor({ tenantId: h.workspaceId, resourceServerId: files, subject: user(u) }))];
      expect(await ask()).toEqual([]); // cached there now
      const b = await bind(`/uflow/v2/users/${u}/role-bindings`);
      await second.catchUp();
      expect(await ask()).toEqual(["files:read"]);
      await h.admin("DELETE", `/uflow/v2/role-bindings/${b}`);
      await second.catchUp();
      expect(await ask()).toEqual([]);
    } finally {
      await second.close();
      await db.$disconnect();
    }
  });
});
