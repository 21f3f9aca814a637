// Tools, scopes, the bulk tool-scope map and the scope matrix; the access policy; approval of a
// client's staged redirect URIs. All over HTTP against a server discovered by a real MCP scan.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertClient } from "./helpers/fixtures";
import { startToolgate, type Harness } from "./helpers/harness";
import { SAMPLE_TOOLS, startMcpServer, type McpTestServer } from "./helpers/mcp-servers";
import { createRole, register, rescan } from "./helpers/lifecycle-flow";

let h: Harness;
let mcp: McpTestServer;

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } }); // the MCP test server is on 127.0.0.1
  mcp = await startMcpServer({ tools: SAMPLE_TOOLS });
});
afterAll(async () => {
  await mcp?.close();
  await h?.close();
});

const call = (id: string, method: string, p: string, json?: unknown) => h.admin(method, `/svc/resource-servers/${id}${p}`, json);

async function scanned(scopes: string[] = []): Promise<string> {
  const rs = await register(h, mcp.url, { scopes });
  expect((await rescan(h, rs.id)).status).toBe(200);
  return rs.id;
}
const toolId = async (id: string, name: string) => (await call(id, "GET", "/tools")).body.items.find((t: { tool_name: string }) => t.tool_name === name).tool_id as string;

describe("tools", () => {
  it("adds a tool by hand (source manual); a taken name is 409; bad input is 400 naming the field", async () => {
    const id = await scanned();
    const r = await call(id, "POST", "/tools", { name: "export_report", title: "Export", description: "Exports", input_schema: { type: "object", properties: {} } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ tool_name: "export_report", title: "Export", source: "manual", is_public: false, stale: false, scope_ids: [], last_seen_generation: 0 });
    expect(r.body.tool_id).toMatch(/^[0-9a-f-]{36}$/);
    const dup = await call(id, "POST", "/tools", { name: "read_file" });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatch(/"read_file" already exists/);
    for (const [body, field] of [
      [{}, "name"],
      [{ name: "" }, "name"],
      [{ name: " padded" }, "name"],
      [{ name: "bad\nname" }, "name"],
      [{ name: "x", input_schema: { type: "string" } }, "input_schema"],
      [{ name: "x", extra: true }, "body"],
    ] as const) {
      const bad = await call(id, "POST", "/tools", body);
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.error).toMatch(new RegExp(`^${field}: `));
    }
  });

  it("marks a tool public with no body as the spec shows, naming every public tool in the answer; a confirm sent must match; can close it again", async () => {
    const id = await scanned();
    const tid = await toolId(id, "list_dir");
    const wrong = await call(id, "POST", `/tools/${tid}/public`, { confirm: "List_dir" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe("confirm: must repeat the tool name exactly");
    expect((await call(id, "GET", "/scope-matrix")).body.scope_matrix).toEqual({}); // nothing changed
    // The spec's call: no body, no content type.
    const bare = await h.request("POST", `/svc/resource-servers/${id}/tools/${tid}/public`, { token: h.adminToken });
    expect(bare.status).toBe(200);
    expect(bare.body).toMatchObject({ tool_id: tid, tool_name: "list_dir", is_public: true, public_tools: ["list_dir"] });
    expect((await call(id, "GET", "/scope-matrix")).body.scope_matrix).toEqual({ list_dir: [] });
    // The typed confirmation stays accepted; the answer names every public tool of the server.
    const second = await call(id, "POST", `/tools/${await toolId(id, "read_file")}/public`, { confirm: "read_file" });
    expect(second.body).toMatchObject({ tool_name: "read_file", is_public: true, public_tools: ["list_dir", "read_file"] });
    expect((await call(id, "GET", "/activation-preview")).body.public_tools).toEqual(["list_dir", "read_file"]);
    const closed = await call(id, "POST", `/tools/${tid}/public`, { is_public: false });
    expect(closed.body).toMatchObject({ is_public: false, public_tools: ["read_file"] });
    expect((await call(id, "GET", "/scope-matrix")).body.scope_matrix).toEqual({ read_file: [] });
    expect((await call(id, "POST", `/tools/${tid}/public`, { confirm: "list_dir", extra: 1 })).status).toBe(400);
    expect((await call(id, "POST", `/tools/00000000-0000-4000-8000-000000000000/public`)).status).toBe(404);
  });
});

describe("scopes", () => {
  it("creates (201), refuses duplicates (409), lists, deletes (204), and keeps scopes_supported in sync", async () => {
    const id = await scanned(["files:read"]);
    const created = await call(id, "POST", "/scopes", { id: "files:write", name: "Write files", description: "Create and change files" });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: "files:write", name: "Write files", description: "Create and change files", tool_count: 0 });
    const dup = await call(id, "POST", "/scopes", { id: "files:read", name: "again" });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatch(/"files:read" already exists/);
    expect((await call(id, "POST", "/scopes", { id: "has space", name: "x" })).body.error).toMatch(/^id: /);
    expect((await call(id, "POST", "/scopes", { id: "ok:scope" })).body.error).toBe("name: is required");

    expect((await h.admin("GET", `/svc/resource-servers/${id}`)).body.scopes_supported).toEqual(["files:read", "files:write"]);
    expect((await call(id, "GET", "/scopes")).body.items.map((s: { id: string }) => s.id)).toEqual(["files:read", "files:write"]);

    expect((await call(id, "DELETE", "/scopes/files:read")).status).toBe(204);
    expect((await call(id, "DELETE", "/scopes/files:read")).status).toBe(404);
    expect((await h.admin("GET", `/svc/resource-servers/${id}`)).body.scopes_supported).toEqual(["files:write"]);
  });

  it("deleting a scope unmaps its tools and removes the role grants of that scope on this server", async () => {
    const id = await scanned(["files:read", "files:write"]);
    await call(id, "PUT", "/tool-scope-map", { mappings: [{ tool_name: "read_file", scope_ids: ["files:read", "files:write"] }, { tool_name: "list_dir", scope_ids: ["files:read"] }] });
    const role = await createRole(h, h.workspaceId, `reader-${id}`);
    await h.db.roleGrant.createMany({
      data: [
        { tenantId: h.workspaceId, roleId: role, resourceServerId: id, scopeKey: "files:read" },
        { tenantId: h.workspaceId, roleId: role, resourceServerId: id, scopeKey: "files:write" },
      ],
    });
    expect((await call(id, "DELETE", "/scopes/files:read")).status).toBe(204);
    const m = (await call(id, "GET", "/scope-matrix")).body;
    expect(m.scope_matrix).toEqual({ read_file: ["files:write"] });
    expect(m.denied_tools).toContain("list_dir");
    expect((await h.db.roleGrant.findMany({ where: { roleId: role } })).map((g) => g.scopeKey)).toEqual(["files:write"]);
    // Not ready: no drift is recorded.
    expect((await call(id, "GET", "/drift-events")).body).toEqual({ items: [], count: 0, next_cursor: null });
  });
});

describe("tool-scope-map and scope-matrix", () => {
  it("replaces each listed tool's scopes in one request (by name or id) and answers the updated matrix", async () => {
    const id = await scanned(["files:read", "files:write", "admin"]);
    const writeId = await toolId(id, "write_file");
    const r = await call(id, "PUT", "/tool-scope-map", {
      mappings: [
        { tool_name: "read_file", scope_ids: ["files:read"] },
        { tool_id: writeId, scope_ids: ["files:write", "admin"] },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.scope_matrix).toEqual({ read_file: ["files:read"], write_file: ["admin", "files:write"] });
    expect(r.body.grid.write_file).toEqual({ admin: true, "files:read": false, "files:write": true });
    expect(r.body.grid.delete_file).toEqual({ admin: false, "files:read": false, "files:write": false });
    expect(r.body.scopes.find((s: { id: string }) => s.id === "admin").tool_count).toBe(1);
    expect(r.body.tools.find((t: { tool_name: string }) => t.tool_name === "read_file")).toMatchObject({ source: "scan", is_public: false, stale: false, scope_ids: ["files:read"] });
    expect(r.body.denied_tools).toEqual(["delete_file", "list_dir"]);

    // Replace, not merge; an empty list unmaps (it does not make the tool public).
    const again = await call(id, "PUT", "/tool-scope-map", { mappings: [{ tool_id: writeId, scope_ids: ["files:write"] }, { tool_name: "read_file", scope_ids: [] }] });
    expect(again.body.scope_matrix).toEqual({ write_file: ["files:write"] });
    expect((await call(id, "GET", "/scope-matrix")).body).toEqual(again.body);
  });

  it("is all-or-nothing: an unknown tool or scope fails the whole request with a 400 naming it", async () => {
    const id = await scanned(["files:read"]);
    await call(id, "PUT", "/tool-scope-map", { mappings: [{ tool_name: "read_file", scope_ids: ["files:read"] }] });
    const before = (await call(id, "GET", "/scope-matrix")).body;
    const cases: [unknown, RegExp][] = [
      [{ mappings: [{ tool_name: "read_file", scope_ids: [] }, { tool_name: "nope", scope_ids: [] }] }, /^mappings\.1\.tool_name: unknown tool "nope"/],
      [{ mappings: [{ tool_name: "read_file", scope_ids: [] }, { tool_name: "list_dir", scope_ids: ["files:nope"] }] }, /^mappings\.1\.scope_ids: unknown scope "files:nope"/],
      [{ mappings: [{ tool_id: "00000000-0000-4000-8000-000000000000", scope_ids: [] }] }, /^mappings\.0\.tool_id: unknown tool/],
      [{ mappings: [{ tool_name: "read_file", scope_ids: [] }, { tool_name: "read_file", scope_ids: [] }] }, /^mappings\.1: the tool "read_file" is listed twice/],
      [{ mappings: [{ tool_name: "read_file", tool_id: "00000000-0000-4000-8000-000000000000", scope_ids: [] }] }, /^mappings\.0: give exactly one of tool_name or tool_id/],
      [{ mappings: [{ tool_name: "read_file", scope_ids: ["files:read", "files:read"] }] }, /^mappings\.0\.scope_ids: must not contain duplicates/],
      [{ mappings: [] }, /^mappings: must list at least one tool/],
    ];
    for (const [body, error] of cases) {
      const r = await call(id, "PUT", "/tool-scope-map", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toMatch(error);
    }
    expect((await call(id, "GET", "/scope-matrix")).body).toEqual(before);
  });

  it("giving a public tool scopes closes it (tightening needs no confirmation)", async () => {
    const id = await scanned(["files:read"]);
    await call(id, "POST", `/tools/${await toolId(id, "list_dir")}/public`, { confirm: "list_dir" });
    const r = await call(id, "PUT", "/tool-scope-map", { mappings: [{ tool_name: "list_dir", scope_ids: ["files:read"] }] });
    expect(r.body.scope_matrix).toEqual({ list_dir: ["files:read"] });
    expect(r.body.tools.find((t: { tool_name: string }) => t.tool_name === "list_dir").is_public).toBe(false);
  });

  it("keeps a tool named like an Object.prototype key an ordinary matrix entry", async () => {
    const id = await scanned(["s"]);
    await call(id, "POST", "/tools", { name: "__proto__" });
    const r = await call(id, "PUT", "/tool-scope-map", { mappings: [{ tool_name: "__proto__", scope_ids: ["s"] }] });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text).scope_matrix).toEqual(JSON.parse('{"__proto__":["s"]}'));
  });
});

describe("access policy", () => {
  it("answers the unconfigured default, then stores enabled + default role + first-time grant", async () => {
    const id = await scanned();
    expect((await call(id, "GET", "/access-policy")).body).toEqual({
      rs_id: id,
      configured: false,
      enabled: false,
      default_role_id: null,
      default_role_name: null,
      first_time_grant: "default_role",
      updated_at: null,
      updated_by: null,
    });
    const role = await createRole(h, h.workspaceId, `viewer-${id}`);
    const put = await call(id, "PUT", "/access-policy", { enabled: true, default_role_id: role, first_time_grant: "none" });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ configured: true, enabled: true, default_role_id: role, default_role_name: `viewer-${id}`, first_time_grant: "none", updated_by: h.ownerId });
    expect((await call(id, "GET", "/access-policy")).body).toEqual(put.body);
    // Omitted fields keep their value: disabling does not forget the role.
    const off = await call(id, "PUT", "/access-policy", { enabled: false });
    expect(off.body).toMatchObject({ enabled: false, default_role_id: role, first_time_grant: "none" });
    expect((await call(id, "PUT", "/access-policy", { enabled: false, default_role_id: null })).body.default_role_id).toBeNull();
  });

  it("refuses an unknown role, another workspace's role, and enabling without a role (400 naming the field)", async () => {
    const id = await scanned();
    const other = await h.createWorkspace("policy-iso@example.test");
    const foreignRole = await createRole(h, other.workspaceId, "foreign");
    const cases: [unknown, RegExp][] = [
      [{ enabled: true, default_role_id: "00000000-0000-4000-8000-000000000000" }, /^default_role_id: no role with this id in the workspace/],
      [{ enabled: true, default_role_id: foreignRole }, /^default_role_id: no role with this id in the workspace/],
      [{ enabled: true }, /^default_role_id: is required when enabled is true/],
      [{ enabled: true, default_role_id: "nope" }, /^default_role_id: must be a UUID/],
      [{ default_role_id: null }, /^enabled: is required/],
      [{ enabled: false, first_time_grant: "everything" }, /^first_time_grant: /],
      [{ enabled: "yes" }, /^enabled: /],
    ];
    for (const [body, error] of cases) {
      const r = await call(id, "PUT", "/access-policy", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toMatch(error);
    }
    expect((await call(id, "GET", "/access-policy")).body.configured).toBe(false);
  });
});

describe("approve-redirects", () => {
  async function client(rsId: string, staged: string[] | null, tenantId = h.workspaceId) {
    const c = await insertClient(h, {
      clientId: `https://app.example.test/meta-${Math.random().toString(36).slice(2)}.json`,
      tenantId,
      resourceServerId: rsId,
      clientName: "CIMD app",
      kind: "human_app",
      registrationMode: "cimd",
      redirectUris: ["https://app.example.test/cb"],
      stagedRedirectUris: staged ?? undefined,
      grantTypes: ["authorization_code"],
    });
    return c.clientId;
  }
  const approve = (rsId: string, clientId: string, token = h.adminToken) =>
    h.request("PUT", `/svc/resource-servers/${rsId}/clients/${encodeURIComponent(clientId)}/approve-redirects`, { token });

  it("applies the staged list, clears it and drops the client's cache entry", async () => {
    const id = await scanned();
    const cid = await client(id, ["https://app.example.test/cb", "https://app.example.test/cb2"]);
    const registry = h.services.oauth.clientRegistry;
    expect(await registry.get(cid)).not.toBeNull(); // cached now
    expect(registry.peek(cid)).toBeDefined();
    const r = await approve(id, cid);
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ client_id: cid, redirect_uris: ["https://app.example.test/cb", "https://app.example.test/cb2"], staged_redirect_uris: null, previous_redirect_uris: ["https://app.example.test/cb"] });
    const row = await h.db.client.findUniqueOrThrow({ where: { clientId: cid } });
    expect(row.redirectUris).toEqual(["https://app.example.test/cb", "https://app.example.test/cb2"]);
    expect(row.stagedRedirectUris).toBeNull();
    expect(registry.peek(cid)).toBeUndefined();
    // Nothing staged any more: 409 saying why.
    const again = await approve(id, cid);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/no redirect-URI change is staged/);
  });

  it("finds only this server's clients of this workspace", async () => {
    const id = await scanned();
    const otherServer = await scanned();
    const cid = await client(otherServer, ["https://x.example.test/cb"]);
    expect((await approve(id, cid)).status).toBe(404);
    expect((await approve(id, "no-such-client")).status).toBe(404);
    const other = await h.createWorkspace("redirects-iso@example.test");
    expect((await approve(otherServer, cid, other.token)).status).toBe(404);
    expect((await h.db.client.findUniqueOrThrow({ where: { clientId: cid } })).stagedRedirectUris).toEqual(["https://x.example.test/cb"]);
  });
});
