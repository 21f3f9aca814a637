// AuthZEN 1.0 (OpenID Authorization API) decisions for resource servers: /access/v1/evaluation,
// /access/v1/evaluations and /.well-known/authzen-configuration, over real HTTP with the rs_id Basic
// secret, plus the SDK's client. Every decision is checked against what the runtime would do: the
// SDK's own tool rule (decideTool) applied to the served sdk-policy and to the scopes the one
// resolver gives (what introspection answers).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, type Harness } from "./helpers/harness";
import { startMcpServer, SAMPLE_TOOLS, type McpTestServer } from "./helpers/mcp-servers";
import { mapAndActivate, register, rescan } from "./helpers/lifecycle-flow";
import { decideTool } from "../src/sdk/tool-policy";
import { createAuthZenClient, CredentialsRefused } from "../src/sdk";

let h: Harness;
let mcp: McpTestServer;
let rs: { id: string; secret: string };
let pending: { id: string; secret: string };
let reader: string; // role: files:read
let writer: string; // role: files:write
let seq = 0;

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } }); // the MCP test servers are on 127.0.0.1
  mcp = await startMcpServer({ tools: [...SAMPLE_TOOLS, { name: "ping", description: "Answers pong" }] });
  rs = await register(h, mcp.url);
  expect((await rescan(h, rs.id)).status).toBe(200);
  await mapAndActivate(h, rs.id, {
    scopes: { "files:read": "Read files", "files:write": "Write files" },
    mappings: { read_file: ["files:read"], list_dir: ["files:read"], write_file: ["files:write"], delete_file: ["files:write"] },
    publicTools: ["ping"],
  });
  // After activation delete_file loses its mapping (drift): denied to everyone.
  expect((await h.admin("PUT", `/svc/resource-servers/${rs.id}/tool-scope-map`, { mappings: [{ tool_name: "delete_file", scope_ids: [] }] })).status).toBe(200);
  pending = await register(h, mcp.url); // registered, never activated
  reader = (await h.admin("POST", "/svc/authmgr/roles", { name: "reader", grants: [{ resource_server_id: rs.id, scope_ids: ["files:read"] }] })).body.id;
  writer = (await h.admin("POST", "/svc/authmgr/roles", { name: "writer", grants: [{ resource_server_id: rs.id, scope_ids: ["files:write"] }] })).body.id;
});
afterAll(async () => {
  await h?.close();
  await mcp?.close();
});

async function user(roles: string[] = []): Promise<string> {
  seq++;
  const id = (await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: `az${seq}@example.test`, username: `az${seq}` })).body.id as string;
  for (const role_id of roles) expect((await h.admin("POST", `/uflow/v2/users/${id}/role-bindings`, { tenant_id: h.workspaceId, role_id })).status).toBe(201);
  return id;
}
async function m2m(allowed: string[]): Promise<string> {
  const r = await h.admin("POST", `/svc/resource-servers/${rs.id}/clients`, { client_name: `svc ${++seq}`, kind: "m2m", redirect_uris: [], allowed_scopes: allowed });
  expect(r.status, r.text).toBe(201);
  return r.body.client_id;
}
const evaluate = (json: unknown, creds: { id: string; secret: string } = rs, headers?: Record<string, string>) =>
  h.request("POST", "/access/v1/evaluation", { basic: [creds.id, creds.secret], json, headers });
const evaluations = (json: unknown, creds: { id: string; secret: string } = rs) => h.request("POST", "/access/v1/evaluations", { basic: [creds.id, creds.secret], json });
const callTool = (subject: { type: string; id: string }, tool: string, context?: Record<string, unknown>) => ({
  subject,
  action: { name: "tools/call" },
  resource: { type: "tool", id: tool },
  ...(context ? { context } : {}),
});

/** What the runtime decides: the SDK's rule over the served policy and the resolver's scopes for the user. */
async function runtimeDecision(userId: string, tool: string): Promise<boolean> {
  const policy = (await h.request("GET", `/svc/resource-servers/${rs.id}/sdk-policy`, { basic: [rs.id, rs.secret] })).body;
  const held = await h.services.rbac.resolver.userScopes(h.workspaceId, rs.id, userId);
  if (held === null) return false; // introspection answers inactive: the SDK refuses the token
  return decideTool(policy, new Map(Object.entries(policy.definition_hashes ?? {})), tool, [...held]).allowed;
}

describe("discovery and authentication", () => {
  it("publishes the PDP metadata (§9) with both endpoints under the public URL", async () => {
    const r = await h.request("GET", "/.well-known/authzen-configuration");
    expect(r.status).toBe(200);
    const base = h.config.publicUrl.replace(/\/+$/, "");
    expect(r.body).toEqual({ policy_decision_point: base, access_evaluation_endpoint: `${base}/access/v1/evaluation`, access_evaluations_endpoint: `${base}/access/v1/evaluations` });
  });

  it("refuses a missing or wrong secret with 401 and a Basic challenge, before reading the body", async () => {
    const none = await h.request("POST", "/access/v1/evaluation", { json: callTool({ type: "user", id: "x" }, "ping") });
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/^Basic /);
    expect((await evaluate(callTool({ type: "user", id: "x" }, "ping"), { id: rs.id, secret: "wrong" })).status).toBe(401);
    expect((await evaluate(callTool({ type: "user", id: "x" }, "ping"), { id: "00000000-0000-4000-8000-000000000000", secret: rs.secret })).status).toBe(401);
    // An admin JWT is not a resource server's credential.
    expect((await h.request("POST", "/access/v1/evaluation", { token: h.adminToken, json: callTool({ type: "user", id: "x" }, "ping") })).status).toBe(401);
  });

  it("answers 400 naming the field when subject, action or resource is missing (§6.1 REQUIRED)", async () => {
    const r = await evaluate({ subject: { type: "user", id: "u" }, action: { name: "tools/call" } });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/resource/);
  });

  it("echoes X-Request-ID", async () => {
    const r = await evaluate(callTool({ type: "user", id: "x" }, "ping"), rs, { "x-request-id": "req-42" });
    expect(r.headers.get("x-request-id")).toBe("req-42");
  });
});

describe("the spec's example shapes", () => {
  it("accepts §6.1's example request (subject/resource/action/context with properties) and denies a foreign model with a coarse reason", async () => {
    const example = {
      subject: { type: "user", id: "alice@acmecorp.com", properties: { department: "Sales" } },
      resource: { type: "account", id: "123", properties: { status: "active" } },
      action: { name: "can_read", properties: { method: "GET" } },
      context: { time: "1985-10-26T01:22-07:00" },
    };
    const r = await evaluate(example);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ decision: false, context: { reason: "unsupported_request" } });
  });

  it("answers {decision: true} with no context for a permitted tool call", async () => {
    const u = await user([reader]);
    const r = await evaluate(callTool({ type: "user", id: u }, "read_file"));
    expect(r.body).toEqual({ decision: true });
  });
});

describe("decisions agree with the runtime", () => {
  it("per tool: granted scope, missing scope, unmapped tool, public tool; equal to the SDK's rule over the resolver's scopes", async () => {
    const u = await user([reader]);
    const expected: Record<string, true | string> = { read_file: true, list_dir: true, write_file: "scope_not_granted", delete_file: "tool_not_mapped", ping: true, no_such_tool: "tool_not_mapped" };
    for (const [tool, want] of Object.entries(expected)) {
      const r = await evaluate(callTool({ type: "user", id: u }, tool));
      expect(r.body, tool).toEqual(want === true ? { decision: true } : { decision: false, context: { reason: want } });
      expect(r.body.decision, tool).toBe(await runtimeDecision(u, tool));
    }
  });

  it("follows role changes at once (the same invalidated caches as introspection)", async () => {
    const u = await user([reader]);
    expect((await evaluate(callTool({ type: "user", id: u }, "write_file"))).body.decision).toBe(false);
    await h.admin("POST", `/uflow/v2/users/${u}/role-bindings`, { tenant_id: h.workspaceId, role_id: writer });
    expect((await evaluate(callTool({ type: "user", id: u }, "write_file"))).body).toEqual({ decision: true });
    expect(await runtimeDecision(u, "write_file")).toBe(true);
  });

  it("a suspended, unknown or non-member user is subject_inactive, even for a public tool", async () => {
    const u = await user([reader]);
    expect((await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/end-users/${u}/suspend`, { reason: "test" })).status).toBe(200);
    for (const subject of [u, "5b0f3f4e-1111-4222-8333-444455556666", "not-a-uuid"]) {
      for (const tool of ["read_file", "ping"]) {
        expect((await evaluate(callTool({ type: "user", id: subject }, tool))).body, `${subject} ${tool}`).toEqual({ decision: false, context: { reason: "subject_inactive" } });
      }
    }
    expect(await runtimeDecision(u, "ping")).toBe(false);
  });

  it("a server that is not launched denies every tool (application_not_launched)", async () => {
    const u = await user([reader]);
    const r = await evaluate(callTool({ type: "user", id: u }, "read_file"), pending);
    expect(r.body).toEqual({ decision: false, context: { reason: "application_not_launched" } });
  });

  it("a changed live definition of a pinned tool is denied (tool_definition_changed); the pinned one is allowed", async () => {
    const policy = (await h.request("GET", `/svc/resource-servers/${rs.id}/sdk-policy`, { basic: [rs.id, rs.secret] })).body;
    const pinned = policy.definition_hashes.read_file as string;
    expect(pinned).toMatch(/^sha256:/);
    const u = await user([reader]);
    const ask = (hash: string) => evaluate({ ...callTool({ type: "user", id: u }, "read_file"), resource: { type: "tool", id: "read_file", properties: { definition_hash: hash } } });
    expect((await ask(pinned)).body).toEqual({ decision: true });
    expect((await ask("sha256:something-else")).body).toEqual({ decision: false, context: { reason: "tool_definition_changed" } });
  });

  it("a machine client: its allowed scopes decide; a revoked client is subject_inactive", async () => {
    const c = await m2m(["files:write"]);
    expect((await evaluate(callTool({ type: "client", id: c }, "write_file"))).body).toEqual({ decision: true });
    expect((await evaluate(callTool({ type: "client", id: c }, "read_file"))).body).toEqual({ decision: false, context: { reason: "scope_not_granted" } });
    expect((await h.admin("POST", `/svc/resource-servers/${rs.id}/clients/${c}/revoke`, {})).status).toBeLessThan(300);
    expect((await evaluate(callTool({ type: "client", id: c }, "write_file"))).body).toEqual({ decision: false, context: { reason: "subject_inactive" } });
    expect((await evaluate(callTool({ type: "client", id: "no-such-client" }, "ping"))).body).toEqual({ decision: false, context: { reason: "subject_inactive" } });
  });

  it("a user acting through a client is bounded by the client's allowed scopes and by the token's scope, as introspection bounds them", async () => {
    const u = await user([reader, writer]);
    const c = await m2m(["files:write"]);
    expect((await evaluate(callTool({ type: "user", id: u }, "read_file", { client_id: c }))).body).toEqual({ decision: false, context: { reason: "scope_not_granted" } });
    expect((await evaluate(callTool({ type: "user", id: u }, "write_file", { client_id: c }))).body).toEqual({ decision: true });
    expect((await evaluate(callTool({ type: "user", id: u }, "write_file", { scope: "files:read" }))).body).toEqual({ decision: false, context: { reason: "scope_not_granted" } });
    expect((await evaluate(callTool({ type: "user", id: u }, "read_file", { scope: "files:read" }))).body).toEqual({ decision: true });
    expect((await evaluate(callTool({ type: "user", id: u }, "read_file", { client_id: "no-such-client" }))).body).toEqual({ decision: false, context: { reason: "client_not_connected" } });
  });
});

describe("/access/v1/evaluations (§7)", () => {
  it("applies defaults, answers each entry in order (execute_all)", async () => {
    const u = await user([reader]);
    const r = await evaluations({
      subject: { type: "user", id: u },
      action: { name: "tools/call" },
      evaluations: [{ resource: { type: "tool", id: "read_file" } }, { resource: { type: "tool", id: "write_file" } }, { resource: { type: "tool", id: "ping" } }],
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ evaluations: [{ decision: true }, { decision: false, context: { reason: "scope_not_granted" } }, { decision: true }] });
  });

  it("deny_on_first_deny and permit_on_first_permit stop at the deciding entry", async () => {
    const u = await user([reader]);
    const base = { subject: { type: "user", id: u }, action: { name: "tools/call" } };
    const entries = ["read_file", "write_file", "ping"].map((id) => ({ resource: { type: "tool", id } }));
    const deny = await evaluations({ ...base, evaluations: entries, options: { evaluations_semantic: "deny_on_first_deny" } });
    expect(deny.body.evaluations.map((e: any) => e.decision)).toEqual([true, false]);
    const permit = await evaluations({ ...base, evaluations: [entries[1], entries[0], entries[2]], options: { evaluations_semantic: "permit_on_first_permit" } });
    expect(permit.body.evaluations.map((e: any) => e.decision)).toEqual([false, true]);
  });

  it("without evaluations it is the single evaluation; an incomplete entry is a deny carrying the error; more than 100 is 400", async () => {
    const u = await user([reader]);
    expect((await evaluations(callTool({ type: "user", id: u }, "read_file"))).body).toEqual({ decision: true });
    const partial = await evaluations({ subject: { type: "user", id: u }, evaluations: [{ resource: { type: "tool", id: "read_file" } }] });
    expect(partial.body.evaluations[0].decision).toBe(false);
    expect(partial.body.evaluations[0].context.error).toMatchObject({ status: 400 });
    expect(partial.body.evaluations[0].context.error.message).toMatch(/action/);
    const many = await evaluations({ ...callTool({ type: "user", id: u }, "ping"), evaluations: Array.from({ length: 101 }, () => ({})) });
    expect(many.status).toBe(400);
  });
});

describe("workspace isolation", () => {
  it("another workspace's server learns nothing about this workspace's users or tools", async () => {
    const ws = await h.createWorkspace(`az-other${++seq}@example.test`);
    const otherMcp = await startMcpServer({ tools: SAMPLE_TOOLS });
    try {
      const other = await register(h, otherMcp.url, { token: ws.token });
      expect((await rescan(h, other.id, ws.token)).status).toBe(200);
      await mapAndActivate(h, other.id, { scopes: { "files:read": "Read" }, mappings: { read_file: ["files:read"], list_dir: ["files:read"], write_file: ["files:read"], delete_file: ["files:read"] }, token: ws.token });
      const u = await user([reader]);
      expect((await evaluate(callTool({ type: "user", id: u }, "read_file"))).body).toEqual({ decision: true });
      expect((await evaluate(callTool({ type: "user", id: u }, "read_file"), other)).body).toEqual({ decision: false, context: { reason: "subject_inactive" } });
      const c = await m2m(["files:read"]);
      expect((await evaluate(callTool({ type: "client", id: c }, "read_file"), other)).body).toEqual({ decision: false, context: { reason: "subject_inactive" } });
    } finally {
      await otherMcp.close();
    }
  });
});

describe("toolgate/sdk createAuthZenClient", () => {
  it("asks the endpoint and returns the decision and reason", async () => {
    const u = await user([reader]);
    const az = createAuthZenClient({ issuer: h.url, resourceServerId: rs.id, introspectionSecret: rs.secret });
    expect(await az.canCallTool({ subject: { type: "user", id: u }, tool: "read_file" })).toEqual({ allowed: true });
    expect(await az.canCallTool({ subject: { type: "user", id: u }, tool: "write_file" })).toEqual({ allowed: false, reason: "scope_not_granted" });
    const many = await az.evaluateMany({ subject: { type: "user", id: u }, action: { name: "tools/call" } }, [{ resource: { type: "tool", id: "ping" } }, { resource: { type: "tool", id: "delete_file" } }]);
    expect(many.map((d) => d.decision)).toEqual([true, false]);
    const wrong = createAuthZenClient({ issuer: h.url, resourceServerId: rs.id, introspectionSecret: "nope" });
    await expect(wrong.canCallTool({ subject: { type: "user", id: u }, tool: "ping" })).rejects.toBeInstanceOf(CredentialsRefused);
  });
});
