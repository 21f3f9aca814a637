// The aggregate read models' SQL as rewritten for scale (issue 22, docs/benchmarks.md "Aggregate
// views at scale"): a tool mapped to two scopes counts each user once (the union of the scopes'
// holders), clients are counted per distinct allowed-scopes list plus service-account bindings,
// and the workspace roll-up's users with access are the members the resolver grants something.
// Counts are checked against the scope resolver asked in process for every user.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertClient } from "./helpers/fixtures";
import { startToolgate, type Harness } from "./helpers/harness";
import { mapAndActivate, register, rescan } from "./helpers/lifecycle-flow";
import { SAMPLE_TOOLS, startMcpServer } from "./helpers/mcp-servers";

let h: Harness;
let mcp: { url: string; close(): Promise<void> };
let rsId: string;
let otherRsId: string;
const users: string[] = [];

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } });
  mcp = await startMcpServer({ tools: SAMPLE_TOOLS });
  const rs = await register(h, mcp.url);
  rsId = rs.id;
  expect((await rescan(h, rsId)).status).toBe(200);
  await mapAndActivate(h, rsId, {
    scopes: { "files:read": "Read files", "files:write": "Write files" },
    // read_file needs either scope: its users are the union of both scopes' holders.
    mappings: { read_file: ["files:read", "files:write"], list_dir: ["files:read"], write_file: ["files:write"], delete_file: ["files:write"] },
  });
  otherRsId = (await register(h, "https://other.example.test")).id;
  const role = async (name: string, scope: string) => (await h.admin("POST", "/svc/authmgr/roles", { name, grants: [{ resource_server_id: rsId, scope_ids: [scope] }] })).body.id as string;
  const reader = await role("Reader", "files:read");
  const writer = await role("Writer", "files:write");
  for (let i = 0; i < 5; i++) users.push((await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: `a${i}@example.test`, username: `a${i}` })).body.id);
  const group = (await h.admin("POST", "/uflow/v2/groups", { name: "readers" })).body;
  for (const u of users.slice(0, 2)) await h.admin("POST", `/uflow/v2/groups/${group.id}/members`, { user_id: u });
  const bind = async (path: string, roleId: string) => expect((await h.admin("POST", `${path}/role-bindings`, { tenant_id: h.workspaceId, role_id: roleId })).status).toBe(201);
  await bind(`/uflow/v2/groups/${group.id}`, reader); // users 0-1 read through the group
  await bind(`/uflow/v2/users/${users[1]}`, writer); // user 1 also writes (counted once on read_file)
  await bind(`/uflow/v2/users/${users[2]}`, writer); // user 2 writes
  await bind(`/uflow/v2/users/${users[3]}`, reader); // user 3 reads, but is suspended below
  await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/end-users/${users[3]}/suspend`, { reason: "test" });
  // user 4 holds nothing.
  for (let i = 0; i < 3; i++) await insertClient(h, { tenantId: h.workspaceId, resourceServerId: rsId, allowedScopes: ["files:read"] });
  for (let i = 0; i < 2; i++) await insertClient(h, { tenantId: h.workspaceId, allowedScopes: ["files:write", "files:read"] }); // workspace-wide
  await insertClient(h, { tenantId: h.workspaceId, resourceServerId: rsId, allowedScopes: ["other:scope"] });
  await insertClient(h, { tenantId: h.workspaceId, resourceServerId: otherRsId, allowedScopes: ["files:read"] }); // another application's
  const account = await insertClient(h, { tenantId: h.workspaceId, resourceServerId: rsId, allowedScopes: [] });
  await bind(`/svc/clientms/clients/${account.id}`, writer); // a service account writing
});
afterAll(async () => {
  await mcp?.close();
  await h?.close();
});

/** The resolver's answer: who holds any of `scopes` on `rs` now. */
async function holders(scopes: string[], rs = rsId): Promise<string[]> {
  const out: string[] = [];
  for (const u of [h.ownerId, ...users]) {
    const held = await h.services.rbac.resolver.userScopes(h.workspaceId, rs, u);
    if (held && scopes.some((s) => held.has(s))) out.push(u);
  }
  return out;
}

describe("aggregate views (scale rewrite)", () => {
  it("tool exposure: a tool mapped to two scopes counts the union of their holders once; clients by allowed scopes plus service accounts", async () => {
    const r = await h.request("GET", `/svc/v1/applications/${rsId}/tool-exposure`, { token: h.adminToken });
    expect(r.status, r.text).toBe(200);
    const byName = Object.fromEntries(r.body.items.map((t: { name: string }) => [t.name, t]));
    expect(byName.read_file.scopes).toEqual(["files:read", "files:write"]);
    expect(byName.read_file.users).toBe((await holders(["files:read", "files:write"])).length);
    expect(byName.read_file.users).toBe(3); // users 0, 1 and 2; 3 is suspended
    expect(byName.list_dir.users).toBe((await holders(["files:read"])).length);
    expect(byName.write_file.users).toBe((await holders(["files:write"])).length);
    expect(byName.read_file.groups).toBe(1);
    expect(byName.write_file.groups).toBe(0);
    // 3 own + 2 workspace-wide clients allowed files:read; the other application's client not; the service account writes.
    expect(byName.list_dir.clients).toBe(5);
    expect(byName.write_file.clients).toBe(2 + 1);
    expect(byName.read_file.clients).toBe(5 + 1);
  });

  it("posture: users with access per application and in the roll-up are the members the resolver grants something", async () => {
    const r = await h.request("GET", `/svc/v1/workspaces/${h.workspaceId}/applications/posture-summary`, { token: h.adminToken });
    expect(r.status, r.text).toBe(200);
    const mine = r.body.items.find((a: { application_id: string }) => a.application_id === rsId);
    const holding = await holders(["files:read", "files:write"]);
    expect(mine.users_with_access).toBe(holding.length);
    expect(r.body.items.find((a: { application_id: string }) => a.application_id === otherRsId).users_with_access).toBe(0);
    expect(r.body.workspace.users_with_access).toBe(holding.length);
    expect(mine.clients.prereg).toEqual({ approved: 5 }); // its own: 3 + 1 + the service account
  });
});
