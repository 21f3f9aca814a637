// Roles (/svc/authmgr/roles, docs/decisions/0012-admin-interfaces.md) over real HTTP and a real database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, type Harness } from "./helpers/harness";

let h: Harness;
let files: string; // a server with files:read, files:write
let mail: string; // a server with mail:send
beforeAll(async () => {
  h = await startToolgate();
  files = (await server("https://files.example.test", ["files:read", "files:write"])).id;
  mail = (await server("https://mail.example.test", ["mail:send"])).id;
});
afterAll(async () => h?.close());

async function server(url: string, scopes: string[], token = h.adminToken) {
  const r = await h.request("POST", "/svc/resource-servers", { token, json: { name: url, public_base_url: url, protected_base_path: "/mcp", scopes_supported: scopes } });
  expect(r.status).toBe(201);
  return r.body as { id: string };
}
let seq = 0;
const roleName = () => `role-${++seq}`;

describe("create and read", () => {
  it("creates a role (201) answering exactly {id, name, description, grants}", async () => {
    const r = await h.admin("POST", "/svc/authmgr/roles", {
      name: "Support",
      description: "Reads files, sends mail",
      grants: [
        { resource_server_id: files, scope_ids: ["files:read"] },
        { resource_server_id: mail, scope_ids: ["mail:send"] },
      ],
    });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(["description", "grants", "id", "name"]);
    expect(r.body.name).toBe("Support");
    expect(r.body.description).toBe("Reads files, sends mail");
    expect(r.body.grants).toEqual(
      expect.arrayContaining([
        { resource_server_id: files, scope_ids: ["files:read"] },
        { resource_server_id: mail, scope_ids: ["mail:send"] },
      ]),
    );
    expect(r.body.grants).toHaveLength(2);
    const got = await h.admin("GET", `/svc/authmgr/roles/${r.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(r.body);
  });

  it("description is optional (null), grants may be empty", async () => {
    const r = await h.admin("POST", "/svc/authmgr/roles", { name: roleName(), grants: [] });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ description: null, grants: [] });
  });

  it("lists as {items, count}", async () => {
    const created = (await h.admin("POST", "/svc/authmgr/roles", { name: roleName(), grants: [{ resource_server_id: files, scope_ids: ["files:write", "files:read"] }] })).body;
    const list = await h.admin("GET", "/svc/authmgr/roles");
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(list.body.items.length);
    expect(list.body.items).toContainEqual({ ...created, grants: [{ resource_server_id: files, scope_ids: ["files:read", "files:write"] }] });
  });

  it("answers 409 for a duplicate name in the workspace", async () => {
    const name = roleName();
    expect((await h.admin("POST", "/svc/authmgr/roles", { name, grants: [] })).status).toBe(201);
    const dup = await h.admin("POST", "/svc/authmgr/roles", { name, grants: [] });
    expect(dup.status).toBe(409);
  });

  it("answers 404 for an unknown role id and 400 for a malformed one", async () => {
    expect((await h.admin("GET", "/svc/authmgr/roles/00000000-0000-4000-8000-000000000000")).status).toBe(404);
    const bad = await h.admin("GET", "/svc/authmgr/roles/nope");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^role_id: /);
  });
});

describe("validation", () => {
  it.each([
    [{ grants: [] }, "name"],
    [{ name: "", grants: [] }, "name"],
    [{ name: "x" }, "grants"],
    [{ name: "x", grants: [{ resource_server_id: "nope", scope_ids: ["a"] }] }, "grants.0.resource_server_id"],
    [{ name: "x", grants: [{ resource_server_id: "00000000-0000-4000-8000-000000000000", scope_ids: [] }] }, "grants.0.scope_ids"],
    [{ name: "x", grants: [{ resource_server_id: "00000000-0000-4000-8000-000000000000", scope_ids: ["a", "a"] }] }, "grants.0.scope_ids"],
    [{ name: "x", grants: [{ resource_server_id: "00000000-0000-4000-8000-000000000000", scope_ids: ["has space"] }] }, "grants.0.scope_ids.0"],
    [{ name: "x", grants: [], color: "red" }, "body"],
  ])("refuses %j with 400 naming %s", async (body, field) => {
    const r = await h.admin("POST", "/svc/authmgr/roles", body);
    expect(r.status).toBe(400);
    expect(r.body.error.startsWith(`${field}: `)).toBe(true);
  });

  it("refuses the same server twice in grants", async () => {
    const r = await h.admin("POST", "/svc/authmgr/roles", {
      name: roleName(),
      grants: [
        { resource_server_id: files, scope_ids: ["files:read"] },
        { resource_server_id: files, scope_ids: ["files:write"] },
      ],
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/^grants: /);
  });

  it("refuses a server that is not a live server of this workspace, naming it", async () => {
    const unknown = "00000000-0000-4000-8000-000000000000";
    const r = await h.admin("POST", "/svc/authmgr/roles", { name: roleName(), grants: [{ resource_server_id: files, scope_ids: ["files:read"] }, { resource_server_id: unknown, scope_ids: ["x"] }] });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe(`grants.1.resource_server_id: no resource server ${unknown} in this workspace`);

    const gone = (await server("https://gone.example.test", ["g:read"])).id;
    expect((await h.admin("DELETE", `/svc/resource-servers/${gone}`)).status).toBe(204);
    const deleted = await h.admin("POST", "/svc/authmgr/roles", { name: roleName(), grants: [{ resource_server_id: gone, scope_ids: ["g:read"] }] });
    expect(deleted.status).toBe(400);
    expect(deleted.body.error).toMatch(/^grants\.0\.resource_server_id: /);
  });

  it("refuses a scope the server does not define, naming it, and writes nothing", async () => {
    const name = roleName();
    const r = await h.admin("POST", "/svc/authmgr/roles", { name, grants: [{ resource_server_id: files, scope_ids: ["files:read", "files:delete", "mail:send"] }] });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe(`grants.0.scope_ids: unknown scope(s) "files:delete", "mail:send" on resource server ${files}`);
    expect(await h.db.role.count({ where: { name } })).toBe(0);
  });
});

describe("PUT replaces", () => {
  it("replaces name, description and grants as a whole", async () => {
    const created = (await h.admin("POST", "/svc/authmgr/roles", { name: roleName(), description: "old", grants: [{ resource_server_id: files, scope_ids: ["files:read", "files:write"] }] })).body;
    const name = roleName();
    const r = await h.admin("PUT", `/svc/authmgr/roles/${created.id}`, { name, grants: [{ resource_server_id: mail, scope_ids: ["mail:send"] }] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: created.id, name, description: null, grants: [{ resource_server_id: mail, scope_ids: ["mail:send"] }] });
    expect((await h.admin("GET", `/svc/authmgr/roles/${created.id}`)).body).toEqual(r.body);
  });

  it("a refused PUT leaves the role unchanged", async () => {
    const created = (await h.admin("POST", "/svc/authmgr/roles", { name: roleName(), grants: [{ resource_server_id: files, scope_ids: ["files:read"] }] })).body;
    const r = await h.admin("PUT", `/svc/authmgr/roles/${created.id}`, { name: "changed", grants: [{ resource_server_id: files, scope_ids: ["nope"] }] });
    expect(r.status).toBe(400);
    expect((await h.admin("GET", `/svc/authmgr/roles/${created.id}`)).body).toEqual(created);
  });

  it("answers 409 when renaming onto another role's name, 404 for an unknown id", async () => {
    const a = (await h.admin("POST", "/svc/authmgr/roles", { name: roleName(), grants: [] })).body;
    const b = (await h.admin("POST", "/svc/authmgr/roles", { name: roleName(), grants: [] })).body;
    expect((await h.admin("PUT", `/svc/authmgr/roles/${b.id}`, { name: a.name, grants: [] })).status).toBe(409);
    expect((await h.admin("PUT", "/svc/authmgr/roles/00000000-0000-4000-8000-000000000000", { name: roleName(), grants: [] })).status).toBe(404);
  });
});

describe("DELETE", () => {
  it("deletes an unused role (204), then it is 404", async () => {
    const r = (await h.admin("POST", "/svc/authmgr/roles", { name: roleName(), grants: [{ resource_server_id: files, scope_ids: ["files:read"] }] })).body;
    expect((await h.admin("DELETE", `/svc/authmgr/roles/${r.id}`)).status).toBe(204);
    expect((await h.admin("GET", `/svc/authmgr/roles/${r.id}`)).status).toBe(404);
    expect(await h.db.roleGrant.count({ where: { roleId: r.id } })).toBe(0);
  });

  it("answers 409 naming the bindings that still use the role", async () => {
    const role = (await h.admin("POST", "/svc/authmgr/roles", { name: roleName(), grants: [] })).body;
    const binding = (await h.admin("POST", `/uflow/v2/users/${h.ownerId}/role-bindings`, { tenant_id: h.workspaceId, role_id: role.id })).body;
    const r = await h.admin("DELETE", `/svc/authmgr/roles/${role.id}`);
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ error: "role is in use by 1 role binding(s); remove those first", binding_ids: [binding.id], resource_server_ids: [] });
    await h.admin("DELETE", `/uflow/v2/role-bindings/${binding.id}`);
    expect((await h.admin("DELETE", `/svc/authmgr/roles/${role.id}`)).status).toBe(204);
  });

  it("answers 409 naming the access policy that uses the role as its default", async () => {
    const role = (await h.admin("POST", "/svc/authmgr/roles", { name: roleName(), grants: [] })).body;
    // The access-policy endpoint belongs to the resource-servers module; the row is what matters here.
    await h.db.accessPolicy.create({ data: { resourceServerId: mail, tenantId: h.workspaceId, enabled: true, defaultRoleId: role.id } });
    const r = await h.admin("DELETE", `/svc/authmgr/roles/${role.id}`);
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ error: "role is in use by the access policy of 1 resource server(s) as its default role; remove those first", binding_ids: [], resource_server_ids: [mail] });
    expect((await h.admin("GET", `/svc/authmgr/roles/${role.id}`)).status).toBe(200);
  });
});

describe("permissions and workspace isolation", () => {
  it("another workspace cannot see, change or delete our roles, nor grant on our servers", async () => {
    const role = (await h.admin("POST", "/svc/authmgr/roles", { name: roleName(), grants: [{ resource_server_id: files, scope_ids: ["files:read"] }] })).body;
    const other = await h.createWorkspace(`iso${++seq}@example.test`);
    const as = (method: string, path: string, json?: unknown) => h.request(method, path, { token: other.token, json });
    expect((await as("GET", `/svc/authmgr/roles/${role.id}`)).status).toBe(404);
    expect((await as("PUT", `/svc/authmgr/roles/${role.id}`, { name: "stolen", grants: [] })).status).toBe(404);
    expect((await as("DELETE", `/svc/authmgr/roles/${role.id}`)).status).toBe(404);
    expect((await as("GET", "/svc/authmgr/roles")).body).toEqual({ items: [], count: 0, next_cursor: null });
    const grantOnOurs = await as("POST", "/svc/authmgr/roles", { name: "x", grants: [{ resource_server_id: files, scope_ids: ["files:read"] }] });
    expect(grantOnOurs.status).toBe(400);
    expect(grantOnOurs.body.error).toMatch(/^grants\.0\.resource_server_id: /);
    // The same name is free in another workspace.
    expect((await as("POST", "/svc/authmgr/roles", { name: role.name, grants: [] })).status).toBe(201);
    expect((await h.admin("GET", `/svc/authmgr/roles/${role.id}`)).body).toEqual(role);
  });

  it("a plain member may not read or write roles", async () => {
    await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: "plain@example.test", username: "plain", password: "plain-password" });
    const token = await h.login("plain@example.test", "plain-password");
    expect((await h.request("GET", "/svc/authmgr/roles", { token })).status).toBe(403);
    expect((await h.request("POST", "/svc/authmgr/roles", { token, json: { name: "x", grants: [] } })).status).toBe(403);
  });
});
