// Drift events (spec "Events"): the five kinds with their exact payloads, recorded only while the
// server is ready and in the same transaction as their cause; listing (all / undismissed) and
// idempotent dismissal that keeps the row; workspace isolation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, type Harness } from "./helpers/harness";
import { SAMPLE_TOOLS, startMcpServer, type McpTestServer } from "./helpers/mcp-servers";
import { createRole, readyServer, register, rescan, type ReadyServer } from "./helpers/lifecycle-flow";
import { ManualClock } from "../src/shared/clock";

let h: Harness;
let mcp: McpTestServer;
const clock = new ManualClock(new Date("2026-05-01T08:00:00.000Z"));
const readies: ReadyServer[] = [];

beforeAll(async () => {
  h = await startToolgate({ clock, env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } }); // the MCP test servers are on 127.0.0.1
  mcp = await startMcpServer({ tools: SAMPLE_TOOLS });
});
afterAll(async () => {
  await mcp?.close();
  for (const r of readies) await r.mcp.close();
  await h?.close();
});

async function ready(): Promise<ReadyServer> {
  const rs = await readyServer(h);
  readies.push(rs);
  return rs;
}
const admin = (id: string, method: string, p: string, json?: unknown) => h.admin(method, `/svc/resource-servers/${id}${p}`, json);
const events = async (id: string, q = "") => (await admin(id, "GET", `/drift-events${q}`)).body;

describe("the five kinds, while ready", () => {
  it("scope_deleted: prior_scope_id, prior_scope_name, tools_affected (integer)", async () => {
    const rs = await ready();
    clock.advance(1000);
    expect((await admin(rs.id, "DELETE", "/scopes/files:write")).status).toBe(204);
    const list = await events(rs.id);
    expect(list.count).toBe(1);
    expect(list.items[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      rs_id: rs.id,
      event_type: "scope_deleted",
      event_payload: { prior_scope_id: "files:write", prior_scope_name: "Write files", tools_affected: 2 },
      occurred_at: clock.now().toISOString(),
      occurred_by: h.ownerId,
      dismissed_at: null,
      dismissed_by: null,
    });
  });

  it("tool_unmapped: one event per removed (tool, scope) pair", async () => {
    const rs = await ready();
    await admin(rs.id, "PUT", "/tool-scope-map", { mappings: [{ tool_name: "read_file", scope_ids: ["files:read", "files:write"] }] }); // only adds: no event
    expect((await events(rs.id)).count).toBe(0);
    await admin(rs.id, "PUT", "/tool-scope-map", {
      mappings: [
        { tool_name: "read_file", scope_ids: [] },
        { tool_name: "write_file", scope_ids: ["files:read"] },
      ],
    });
    const payloads = (await events(rs.id)).items.map((e: { event_type: string; event_payload: unknown }) => [e.event_type, e.event_payload]);
    expect(payloads).toHaveLength(3);
    expect(payloads).toEqual(
      expect.arrayContaining([
        ["tool_unmapped", { tool_name: "read_file", prior_scope_id: "files:read" }],
        ["tool_unmapped", { tool_name: "read_file", prior_scope_id: "files:write" }],
        ["tool_unmapped", { tool_name: "write_file", prior_scope_id: "files:write" }],
      ]),
    );
  });

  it("default_role_disabled and default_role_changed (ids of the roles)", async () => {
    const rs = await ready();
    const viewer = await createRole(h, h.workspaceId, `viewer-${rs.id}`);
    const editor = await createRole(h, h.workspaceId, `editor-${rs.id}`);
    // Disabled -> enabled with a first role: nothing was replaced, nothing disabled.
    await admin(rs.id, "PUT", "/access-policy", { enabled: true, default_role_id: viewer });
    expect((await events(rs.id)).count).toBe(0);
    await admin(rs.id, "PUT", "/access-policy", { enabled: true, default_role_id: editor });
    await admin(rs.id, "PUT", "/access-policy", { enabled: false });
    const byType = Object.fromEntries((await events(rs.id)).items.map((e: { event_type: string; event_payload: unknown }) => [e.event_type, e.event_payload]));
    expect(byType).toEqual({
      default_role_changed: { prior_default_role: viewer, new_default_role: editor },
      default_role_disabled: { prior_default_role: editor },
    });
  });

  it("disabling and swapping the role in one change is only default_role_disabled; a disabled policy's role swap is no drift", async () => {
    const rs = await ready();
    const viewer = await createRole(h, h.workspaceId, `v2-${rs.id}`);
    const editor = await createRole(h, h.workspaceId, `e2-${rs.id}`);
    await admin(rs.id, "PUT", "/access-policy", { enabled: true, default_role_id: viewer });
    await admin(rs.id, "PUT", "/access-policy", { enabled: false, default_role_id: editor });
    await admin(rs.id, "PUT", "/access-policy", { enabled: false, default_role_id: viewer });
    const types = (await events(rs.id)).items.map((e: { event_type: string }) => e.event_type);
    expect(types).toEqual(["default_role_disabled"]);
  });

  it("secret_rotated: rotated_by (administrator) and rotated_at (ISO 8601), same instant as the rotation", async () => {
    const rs = await ready();
    clock.advance(5000);
    const rot = await admin(rs.id, "POST", "/rotate-introspection-secret");
    const e = (await events(rs.id)).items[0];
    expect(e).toMatchObject({ event_type: "secret_rotated", event_payload: { rotated_by: h.ownerId, rotated_at: rot.body.rotated_at }, occurred_by: h.ownerId });
    expect(rot.body.rotated_at).toBe(clock.now().toISOString());
  });
});

describe("nothing is recorded before activation", () => {
  it("scope deletion, unmapping, policy changes and rotation on a needs_setup server leave no event", async () => {
    const rs = await register(h, mcp.url, { scopes: ["a", "b"] });
    await rescan(h, rs.id);
    const role1 = await createRole(h, h.workspaceId, `r1-${rs.id}`);
    const role2 = await createRole(h, h.workspaceId, `r2-${rs.id}`);
    await admin(rs.id, "PUT", "/tool-scope-map", { mappings: [{ tool_name: "read_file", scope_ids: ["a", "b"] }] });
    await admin(rs.id, "PUT", "/tool-scope-map", { mappings: [{ tool_name: "read_file", scope_ids: ["a"] }] });
    await admin(rs.id, "DELETE", "/scopes/a");
    await admin(rs.id, "PUT", "/access-policy", { enabled: true, default_role_id: role1 });
    await admin(rs.id, "PUT", "/access-policy", { enabled: true, default_role_id: role2 });
    await admin(rs.id, "PUT", "/access-policy", { enabled: false });
    await admin(rs.id, "POST", "/rotate-introspection-secret");
    expect(await events(rs.id)).toEqual({ items: [], count: 0, next_cursor: null });
    expect(await h.db.driftEvent.count({ where: { rsId: rs.id } })).toBe(0);
  });
});

describe("listing and dismissal", () => {
  it("lists newest first, filters ?undismissed=true, dismisses once (idempotent), keeps the row", async () => {
    const rs = await ready();
    clock.advance(1000);
    await admin(rs.id, "PUT", "/tool-scope-map", { mappings: [{ tool_name: "list_dir", scope_ids: [] }] });
    clock.advance(1000);
    await admin(rs.id, "POST", "/rotate-introspection-secret");
    const all = await events(rs.id);
    expect(all.items.map((e: { event_type: string }) => e.event_type)).toEqual(["secret_rotated", "tool_unmapped"]);
    const [rotated, unmapped] = all.items;

    clock.advance(1000);
    const dismissedAt = clock.now().toISOString();
    const d = await admin(rs.id, "POST", `/drift-events/${unmapped.id}/dismiss`);
    expect(d.status).toBe(200);
    expect(d.body).toEqual({ ...unmapped, dismissed_at: dismissedAt, dismissed_by: h.ownerId });

    // A second dismissal, later and by another administrator, changes nothing.
    const second = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: "second-admin@example.test", username: "second", password: "second-admin-password" });
    expect((await h.admin("PATCH", `/uflow/v2/tenants/${h.workspaceId}/memberships/${second.body.id}`, { membership_type: "admin" })).status).toBe(200);
    const otherAdmin = await h.login("second-admin@example.test", "second-admin-password", h.workspaceId);
    clock.advance(1000);
    const again = await h.request("POST", `/svc/resource-servers/${rs.id}/drift-events/${unmapped.id}/dismiss`, { token: otherAdmin });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ dismissed_at: dismissedAt, dismissed_by: h.ownerId });

    expect((await events(rs.id, "?undismissed=true")).items.map((e: { id: string }) => e.id)).toEqual([rotated.id]);
    expect((await events(rs.id, "?undismissed=false")).count).toBe(2);
    expect((await events(rs.id)).count).toBe(2); // kept
    expect((await admin(rs.id, "GET", "/drift-events?undismissed=yes")).body.error).toMatch(/^undismissed: /);
  });

  it("404 for an unknown event, or one of another server, and for another workspace", async () => {
    const a = await ready();
    const b = await ready();
    await admin(b.id, "POST", "/rotate-introspection-secret");
    const bEvent = (await events(b.id)).items[0];
    expect((await admin(a.id, "POST", `/drift-events/${bEvent.id}/dismiss`)).status).toBe(404);
    expect((await admin(a.id, "POST", "/drift-events/00000000-0000-4000-8000-000000000000/dismiss")).status).toBe(404);
    expect((await admin(a.id, "POST", "/drift-events/nope/dismiss")).body.error).toMatch(/^event_id: /);

    const other = await h.createWorkspace("drift-iso@example.test");
    expect((await h.request("GET", `/svc/resource-servers/${b.id}/drift-events`, { token: other.token })).status).toBe(404);
    expect((await h.request("POST", `/svc/resource-servers/${b.id}/drift-events/${bEvent.id}/dismiss`, { token: other.token })).status).toBe(404);
    expect((await events(b.id)).items[0].dismissed_at).toBeNull();
  });
});

describe("same transaction as the cause", () => {
  it("a rotation that fails after writing its event leaves neither the new secret nor the event", async () => {
    const rs = await ready();
    // A later rotation hook fails: the whole rotation, its secret_rotated event included, rolls back.
    h.services.resourceServers.onSecretRotated(async (_tx, _actor, server) => {
      if (server.id === rs.id) throw new Error("simulated failure after the drift event was written");
    });
    const r = await admin(rs.id, "POST", "/rotate-introspection-secret");
    expect(r.status).toBe(500);
    expect(await h.db.driftEvent.count({ where: { rsId: rs.id } })).toBe(0);
    expect(h.services.registry.verifySecret(await h.services.registry.get(rs.id), rs.secret)?.id).toBe(rs.id);
  });
});
