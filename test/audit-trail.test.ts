// The audit trail (docs/audit-and-integrations.md): every admin write, REST and GraphQL alike,
// appends one event with its actor, address, target, outcome and request id; security events are
// recorded (the hot paths' ones as counts); no event holds a secret; the list API filters, pages
// and keeps workspaces apart; one statement per write transaction; the chain verifies.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, ADMIN_EMAIL, ADMIN_PASSWORD, type Harness, type HttpResult } from "./helpers/harness";
import { readyServer, type ReadyServer } from "./helpers/lifecycle-flow";
import { authorizeCode, exchangeCode, setUpSignIn } from "./helpers/signin-flow";
import { observeQueries } from "../src/storage";
import { hashSecret } from "../src/shared/crypto";
import { verifyAuditTrail } from "../src/modules/audit";
import { runCli } from "../src/cli/run";

let h: Harness;
/** Every secret, password and token this file creates: none may appear in the audit trail. */
const secrets: string[] = [];
const statements: string[] = [];
const stopObserving = observeQueries((q) => statements.push(q.query));

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1", TOOLGATE_WEBHOOK_ALLOW_PRIVATE: "1", TOOLGATE_WEBHOOK_WORKER: "0" } });
  secrets.push(ADMIN_PASSWORD, h.adminToken);
});
afterAll(async () => {
  stopObserving();
  await h?.close();
});

const requestIdOf = (r: HttpResult) => r.headers.get("x-request-id")!;
async function eventsOf(r: HttpResult) {
  return h.db.auditEvent.findMany({ where: { requestId: requestIdOf(r) }, orderBy: { seq: "asc" } });
}
/** The one event of an admin write: its action, the owner as actor from 127.0.0.1, success, the target. */
async function expectEvent(r: HttpResult, action: string, target?: { type: string; id: string }) {
  expect(r.status, r.text).toBeLessThan(300);
  const events = await eventsOf(r);
  expect(events.map((e) => e.action), `${action} for ${requestIdOf(r)}`).toEqual([action]);
  const e = events[0]!;
  expect(e).toMatchObject({ actorType: "user", actorId: h.ownerId, address: "127.0.0.1", outcome: "success", tenantId: h.workspaceId, chain: h.workspaceId });
  if (target) expect({ type: e.targetType, id: e.targetId }).toEqual(target);
  return { ...e, summary: JSON.parse(e.summary) };
}

describe("every admin write appends one event", () => {
  let rs: ReadyServer;
  afterAll(async () => rs?.mcp.close());

  it("people and access: users, memberships, end users, roles, groups, bindings", async () => {
    const ws = h.workspaceId;
    const user = await h.admin("POST", `/uflow/v2/tenants/${ws}/users`, { email: "audited@example.test", username: "audited", password: "a long enough password 1" });
    secrets.push("a long enough password 1");
    const created = await expectEvent(user, "user.created", { type: "user", id: user.body.id });
    expect(created.summary.changes.map((c: any) => `${c.entity}.${c.op}`)).toEqual(["user.created", "membership.created"]);
    expect(created.summary.changes[0].redacted).toEqual(["password_hash"]);
    expect(created.summary.changes[0].after).not.toHaveProperty("password_hash");
    const patched = await expectEvent(await h.admin("PATCH", `/uflow/v2/tenants/${ws}/memberships/${user.body.id}`, { membership_type: "admin" }), "membership.updated");
    expect(patched.summary.changes[0]).toMatchObject({ before: { membership_type: "member" }, after: { membership_type: "admin" } });
    await expectEvent(await h.admin("PATCH", `/uflow/v2/tenants/${ws}/end-users/${user.body.id}`, { plan_tier: "pro" }), "end_user.created");
    const suspended = await expectEvent(await h.admin("POST", `/uflow/v2/tenants/${ws}/end-users/${user.body.id}/suspend`, { reason: "audit test" }), "end_user.updated");
    expect(suspended.summary.changes[0].after).toMatchObject({ status: "suspended", suspended_reason: "audit test" });
    await expectEvent(await h.admin("POST", `/uflow/v2/tenants/${ws}/end-users/${user.body.id}/reactivate`), "end_user.updated");

    const role = await h.admin("POST", "/svc/authmgr/roles", { name: "Audited role", grants: [] });
    await expectEvent(role, "role.created", { type: "role", id: role.body.id });
    await expectEvent(await h.admin("PUT", `/svc/authmgr/roles/${role.body.id}`, { name: "Audited role 2", grants: [] }), "role.updated", { type: "role", id: role.body.id });
    const group = await h.admin("POST", "/uflow/v2/groups", { name: "Audited group" });
    await expectEvent(group, "group.created", { type: "group", id: group.body.id });
    await expectEvent(await h.admin("POST", `/uflow/v2/groups/${group.body.id}/members`, { user_id: user.body.id }), "group_member.created", { type: "group_member", id: `${group.body.id}:${user.body.id}` });
    const binding = await h.admin("POST", `/uflow/v2/users/${user.body.id}/role-bindings`, { tenant_id: ws, role_id: role.body.id });
    await expectEvent(binding, "role_binding.created", { type: "role_binding", id: binding.body.id });
    const groupBinding = await h.admin("POST", `/uflow/v2/groups/${group.body.id}/role-bindings`, { tenant_id: ws, role_id: role.body.id });
    await expectEvent(groupBinding, "role_binding.created", { type: "role_binding", id: groupBinding.body.id });
    await expectEvent(await h.admin("DELETE", `/uflow/v2/role-bindings/${binding.body.id}`), "role_binding.deleted", { type: "role_binding", id: binding.body.id });
    await expectEvent(await h.admin("DELETE", `/uflow/v2/role-bindings/${groupBinding.body.id}`), "role_binding.deleted");
    await expectEvent(await h.admin("DELETE", `/uflow/v2/groups/${group.body.id}/members/${user.body.id}`), "group_member.deleted");
    await expectEvent(await h.admin("DELETE", `/uflow/v2/groups/${group.body.id}`), "group.deleted", { type: "group", id: group.body.id });
    await expectEvent(await h.admin("DELETE", `/svc/authmgr/roles/${role.body.id}`), "role.deleted", { type: "role", id: role.body.id });
    const removed = await expectEvent(await h.admin("DELETE", `/uflow/v2/tenants/${ws}/memberships/${user.body.id}`), "membership.deleted");
    // The hooks' and the end-user state's deletions are listed with it; the event is named after the membership.
    expect(removed.summary.changes.map((c: any) => `${c.entity}.${c.op}`)).toEqual(["end_user.deleted", "membership.deleted"]);
    expect(removed.summary.changes[1].before).toMatchObject({ membership_type: "admin", user_id: user.body.id });
    const readded = await h.admin("POST", `/uflow/v2/tenants/${ws}/memberships`, { user_id: user.body.id });
    await expectEvent(readded, "membership.created");
  });

  it("resource servers: lifecycle, catalog, policy, clients, drift", async () => {
    rs = await readyServer(h);
    secrets.push(rs.secret);
    const id = rs.id;
    await expectEvent(await h.admin("PUT", `/svc/resource-servers/${id}`, { name: "Renamed" }), "resource_server.updated", { type: "resource_server", id });
    const rotated = await h.admin("POST", `/svc/resource-servers/${id}/rotate-introspection-secret`);
    secrets.push(rotated.body.introspection_secret);
    const rotation = await expectEvent(rotated, "resource_server.secret_rotated", { type: "resource_server", id });
    expect(rotation.summary.changes.map((c: any) => c.entity)).toEqual(["resource_server", "drift_event"]);
    expect(rotation.summary.changes[0].redacted).toEqual(["introspection_secret_hash"]);
    const scope = await h.admin("POST", `/svc/resource-servers/${id}/scopes`, { id: "files:admin", name: "Administer files" });
    await expectEvent(scope, "scope.created");
    const tool = await h.admin("POST", `/svc/resource-servers/${id}/tools`, { name: "audit_tool" });
    await expectEvent(tool, "tool.created", { type: "tool", id: tool.body.id ?? tool.body.tool_id });
    await expectEvent(await h.admin("PUT", `/svc/resource-servers/${id}/tool-scope-map`, { mappings: [{ tool_name: "audit_tool", scope_ids: ["files:admin"] }] }), "tool_scope_map.replaced", { type: "resource_server", id });
    await expectEvent(await h.admin("POST", `/svc/resource-servers/${id}/tools/${tool.body.id ?? tool.body.tool_id}/public`, { confirm: "audit_tool" }), "tool.updated");
    const deleted = await expectEvent(await h.admin("DELETE", `/svc/resource-servers/${id}/scopes/files:admin`), "scope.deleted");
    expect(deleted.summary.changes.map((c: any) => c.entity)).toContain("drift_event");
    const role = await h.admin("POST", "/svc/authmgr/roles", { name: "Default", grants: [] });
    await expectEvent(await h.admin("PUT", `/svc/resource-servers/${id}/access-policy`, { enabled: true, default_role_id: role.body.id, first_time_grant: "default_role" }), "access_policy.updated");
    const drift = (await h.admin("GET", `/svc/resource-servers/${id}/drift-events`)).body.items[0];
    await expectEvent(await h.admin("POST", `/svc/resource-servers/${id}/drift-events/${drift.id}/dismiss`), "drift_event.updated", { type: "drift_event", id: drift.id });

    const client = await h.admin("POST", `/svc/resource-servers/${id}/clients`, { client_name: "Audited client", redirect_uris: [], kind: "m2m", allowed_scopes: ["files:read"] });
    secrets.push(client.body.client_secret);
    const made = await expectEvent(client, "client.created", { type: "client", id: client.body.id ?? (await h.db.client.findUniqueOrThrow({ where: { clientId: client.body.client_id } })).id });
    expect(made.summary.changes[0].redacted).toEqual(["secret_hash"]);
    const cid = client.body.client_id;
    await expectEvent(await h.admin("PATCH", `/svc/resource-servers/${id}/clients/${cid}`, { token_lifetime: 600 }), "client.updated");
    const newSecret = await h.admin("POST", `/svc/resource-servers/${id}/clients/${cid}/rotate-secret`, { grace_seconds: 60 });
    secrets.push(newSecret.body.client_secret);
    await expectEvent(newSecret, "client.secret_rotated", { type: "client", id: cid });
    await expectEvent(await h.admin("POST", `/svc/resource-servers/${id}/clients/${cid}/revoke`), "client.revoked", { type: "client", id: cid });
    const dashboard = await h.admin("POST", "/svc/clientms/clients", { client_name: "Dashboard client", client_type: "m2m", resource_server_id: id });
    secrets.push(dashboard.body.client_secret);
    await expectEvent(dashboard, "client.created");

    const webhook = await h.admin("POST", "/svc/exsvc/webhooks", { url: "http://127.0.0.1:9/audit", event_types: ["*"] });
    secrets.push(webhook.body.secret);
    const hook = await expectEvent(webhook, "webhook_subscription.created", { type: "webhook_subscription", id: webhook.body.id });
    expect(hook.summary.changes[0].redacted).toEqual(["secret_enc", "url"]);
    await expectEvent(await h.admin("PATCH", `/svc/exsvc/webhooks/${webhook.body.id}`, { status: "disabled" }), "webhook_subscription.updated");
    await expectEvent(await h.admin("DELETE", `/svc/exsvc/webhooks/${webhook.body.id}`), "webhook_subscription.deleted");

    const other = await h.admin("POST", "/svc/resource-servers", { name: "Gone", public_base_url: "https://gone.example.test", protected_base_path: "/mcp", scopes_supported: [] });
    secrets.push(other.body.introspection_secret);
    await expectEvent(other, "resource_server.created", { type: "resource_server", id: other.body.id });
    await expectEvent(await h.admin("DELETE", `/svc/resource-servers/${other.body.id}`), "resource_server.deleted", { type: "resource_server", id: other.body.id });
  });

  it("the activation of a server is named", async () => {
    const activated = await h.db.auditEvent.findMany({ where: { action: "resource_server.activated", targetId: rs.id } });
    expect(activated).toHaveLength(1);
    expect(activated[0]).toMatchObject({ actorType: "user", actorId: h.ownerId, outcome: "success" });
  });

  it("GraphQL mutations append the same events as REST", async () => {
    const r = await h.request("POST", "/graphql", { token: h.adminToken, json: { query: 'mutation { createGroup(input: { name: "Graph group" }) { id } }' } });
    expect(r.status, r.text).toBe(200);
    const id = r.body.data.createGroup.id;
    await expectEvent(r, "group.created", { type: "group", id });
  });
});

describe("security events", () => {
  it("sign-in success and failure, with the factor, in the account's workspace; unknown accounts without the email", async () => {
    const ok = await h.request("POST", "/svc/uflow/auth/login", { json: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
    secrets.push(ok.body.access_token);
    const [success] = await eventsOf(ok);
    expect(success).toMatchObject({ action: "signin.succeeded", outcome: "success", actorType: "user", actorId: h.ownerId, targetId: h.ownerId, tenantId: h.workspaceId, address: "127.0.0.1" });
    expect(JSON.parse(success!.summary).detail).toEqual({ factor: "password" });
    const wrong = await h.request("POST", "/svc/uflow/auth/login", { json: { email: ADMIN_EMAIL, password: "not the password at all" } });
    secrets.push("not the password at all");
    expect(wrong.status).toBe(401);
    const [failure] = await eventsOf(wrong);
    expect(failure).toMatchObject({ action: "signin.failed", outcome: "failure", targetId: h.ownerId, tenantId: h.workspaceId });
    expect(JSON.parse(failure!.summary).detail).toEqual({ factor: "password", reason: "wrong password" });
    const typo = "correct-horse-typed-as-email@nowhere.test";
    const unknown = await h.request("POST", "/svc/uflow/auth/login", { json: { email: typo, password: "whatever it is 1" } });
    const [nobody] = await eventsOf(unknown);
    expect(nobody).toMatchObject({ action: "signin.failed", actorType: "anonymous", tenantId: null, chain: "installation" });
    expect(nobody!.summary).not.toContain(typo);
  });

  it("tokens issued and refused, and failed client authentication, are counted, not written per request", async () => {
    const server = await h.admin("POST", "/svc/resource-servers", { name: "Counted", public_base_url: "https://counted.example.test", protected_base_path: "/mcp", scopes_supported: ["a:read"] });
    secrets.push(server.body.introspection_secret);
    await h.admin("POST", `/svc/resource-servers/${server.body.id}/scopes`, { id: "a:read", name: "Read" });
    const client = await h.admin("POST", `/svc/resource-servers/${server.body.id}/clients`, { client_name: "Counted client", redirect_uris: [], kind: "m2m", allowed_scopes: ["a:read"] });
    secrets.push(client.body.client_secret);
    await h.services.audit.counters.flush();
    const before = await h.db.auditEvent.count();
    for (let i = 0; i < 5; i++) {
      const t = await h.request("POST", "/oauth/token", { basic: [client.body.client_id, client.body.client_secret], form: { grant_type: "client_credentials" } });
      expect(t.status).toBe(200);
      secrets.push(t.body.access_token);
    }
    for (let i = 0; i < 3; i++) expect((await h.request("POST", "/oauth/token", { basic: [client.body.client_id, "wrong-secret-value"], form: { grant_type: "client_credentials" } })).status).toBe(401);
    expect((await h.request("POST", "/oauth/token", { basic: [client.body.client_id, client.body.client_secret], form: { grant_type: "client_credentials", scope: "b:write" } })).status).toBe(400);
    expect((await h.request("POST", "/oauth/introspect", { basic: [server.body.id, "not-the-secret"], form: { token: "x" } })).status).toBe(401);
    expect(await h.db.auditEvent.count()).toBe(before); // nothing written on the request paths
    await h.services.audit.counters.flush();
    const counted = await h.db.auditEvent.findMany({ where: { seq: { gt: 0 }, action: { in: ["token.issued", "client.authentication_failed", "token.refused", "resource_server.authentication_failed"] }, tenantId: h.workspaceId }, orderBy: { seq: "asc" } });
    const byAction = Object.fromEntries(counted.map((e) => [e.action, { ...e, detail: JSON.parse(e.summary).detail }]));
    expect(byAction["token.issued"]).toMatchObject({ actorType: "client", actorId: client.body.client_id, outcome: "success", detail: { count: 5, grant_type: "client_credentials" } });
    expect(byAction["client.authentication_failed"]).toMatchObject({ outcome: "failure", targetId: client.body.client_id, detail: { count: 3, reason: "invalid_client: unknown client_id or wrong secret", addresses: ["127.0.0.1"] } });
    expect(byAction["token.refused"]).toMatchObject({ outcome: "failure", detail: { count: 1, reason: "invalid_scope: a requested scope is not among the client's allowed scopes" } });
    expect(byAction["resource_server.authentication_failed"]).toMatchObject({ actorType: "resource_server", actorId: server.body.id, detail: { count: 1 } });
  });

  it("registration refused, CIMD fetch refused: counted in the installation's chain", async () => {
    expect((await h.request("POST", "/oauth/register", { json: { redirect_uris: ["ftp://nope"] } })).status).toBe(400);
    const url = new URL(`${h.url}/oauth/authorize`);
    url.search = new URLSearchParams({ response_type: "code", client_id: "https://127.0.0.1/client.json", redirect_uri: "http://127.0.0.1:1/cb", code_challenge: "x".repeat(43), code_challenge_method: "S256" }).toString();
    await fetch(url, { redirect: "manual" });
    await h.services.audit.counters.flush();
    const refused = await h.db.auditEvent.findFirstOrThrow({ where: { action: "registration.refused" } });
    expect(refused).toMatchObject({ chain: "installation", outcome: "failure" });
    expect(JSON.parse(refused.summary).detail).toMatchObject({ count: 1, addresses: ["127.0.0.1"], reason: expect.stringMatching(/^invalid_redirect_uri: |^invalid_client_metadata: /) });
    const cimd = await h.db.auditEvent.findFirstOrThrow({ where: { action: "cimd.fetch_refused" } });
    expect(cimd).toMatchObject({ chain: "installation", actorId: "https://127.0.0.1/client.json" });
    expect(JSON.parse(cimd.summary).detail.reason).toMatch(/^the metadata document cannot be fetched/);
  });

  it("a connection revoked by an administrator", async () => {
    const REDIRECT = "http://127.0.0.1:7777/cb";
    const user = { email: "conn-user@example.test", password: "a long enough password 2" };
    secrets.push(user.password);
    const setup = await setUpSignIn(h.url, h.adminToken, { name: "Conn", scopes: ["c:read"], users: [user], redirectUri: REDIRECT });
    secrets.push(setup.introspectionSecret, setup.clientSecret);
    const reg = await h.request("POST", "/oauth/register", { json: { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], client_name: "Conn DCR" } });
    secrets.push(reg.body.registration_access_token);
    const flow = { publicUrl: h.config.publicUrl, serverUrl: h.url, clientId: reg.body.client_id, redirectUri: REDIRECT, resource: setup.resource, scope: "", ...user };
    const { code, verifier } = await authorizeCode(flow);
    const tokens = await exchangeCode(flow, code, verifier);
    secrets.push(tokens.body.access_token, tokens.body.refresh_token, code, verifier);
    const connected = await h.db.auditEvent.findFirstOrThrow({ where: { action: "connection.created", tenantId: h.workspaceId } });
    expect(connected.actorType).toBe("anonymous");
    const revoked = await h.admin("POST", `/svc/resource-servers/${setup.serverId}/clients/${encodeURIComponent(reg.body.client_id)}/revoke`);
    const conn = await h.db.connection.findFirstOrThrow({ where: { clientId: reg.body.client_id } });
    await expectEvent(revoked, "connection.revoked", { type: "connection", id: conn.id });
  });

  it("a signing key rotated and a password reset by the CLI name the operator", async () => {
    const env = { DATABASE_URL: h.config.database.url, TOOLGATE_DATA_DIR: h.config.dataDir, TOOLGATE_MASTER_KEY: h.config.masterKey!.toString("hex") };
    const io = { out: () => undefined, err: () => undefined };
    expect(await runCli(["keys", "rotate", "--activate-in", "0"], env, io)).toBe(0);
    // A second owner (the first keeps signing in for the other tests) gets a new password from the operator.
    const ws = h.workspaceId;
    const second = await h.admin("POST", `/uflow/v2/tenants/${ws}/users`, { email: "second-owner@example.test", username: "second", password: "a long enough password 4" });
    await h.admin("PATCH", `/uflow/v2/tenants/${ws}/memberships/${second.body.id}`, { membership_type: "owner" });
    const newPassword = "reset by the operator 1";
    secrets.push(newPassword, "a long enough password 4");
    expect(await runCli(["users", "reset-password", "--email", "second-owner@example.test"], { ...env, TOOLGATE_NEW_PASSWORD: newPassword }, io)).toBe(0);
    const key = await h.db.auditEvent.findFirstOrThrow({ where: { action: "signing_key.rotated" } });
    expect(key).toMatchObject({ chain: "installation", actorType: "cli", address: "local", targetType: "signing_key" });
    const reset = await h.db.auditEvent.findFirstOrThrow({ where: { action: "user.password_reset" } });
    expect(reset).toMatchObject({ chain: ws, actorType: "cli", targetId: second.body.id });
    expect(JSON.parse(reset.summary).changes[0]).toMatchObject({ entity: "user", op: "updated", redacted: ["password_hash"], after: { credential_version: 1 } });
  });
});

describe("no event holds a secret", () => {
  it("scans every column of every event for every secret, its hash and any sealed value", async () => {
    const rows = await h.db.auditEvent.findMany();
    const text = rows.map((r) => JSON.stringify(r)).join("\n");
    expect(rows.length).toBeGreaterThan(50);
    for (const s of secrets.filter(Boolean)) {
      expect(text, "a secret").not.toContain(s);
      expect(text, "a secret's hash").not.toContain(hashSecret(h.services.secretPepper, s));
    }
    expect(text).not.toMatch(/scrypt\$/);
    expect(text).not.toMatch(/"v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+"/);
  });
});

describe("the list API", () => {
  it("filters by action (exact or family), actor, target, outcome and time, and pages with a cursor", async () => {
    const base = `/svc/v1/workspaces/${h.workspaceId}/audit-events`;
    const all = await h.admin("GET", `${base}?limit=1000`);
    expect(all.status).toBe(200);
    const seqs = all.body.items.map((e: any) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a: number, b: number) => b - a));
    const family = await h.admin("GET", `${base}?action=role_binding.*`);
    expect(family.body.items.length).toBeGreaterThanOrEqual(4);
    expect(family.body.items.every((e: any) => e.action.startsWith("role_binding."))).toBe(true);
    const failures = await h.admin("GET", `${base}?outcome=failure`);
    expect(failures.body.items.every((e: any) => e.outcome === "failure")).toBe(true);
    expect(failures.body.items.length).toBeGreaterThan(0);
    const byActor = await h.admin("GET", `${base}?actor_type=cli`);
    expect(byActor.body.items.map((e: any) => e.action)).toEqual(["user.password_reset"]);
    const target = all.body.items.find((e: any) => e.action === "group.created");
    const byTarget = await h.admin("GET", `${base}?target_type=group&target_id=${target.target.id}`);
    expect(byTarget.body.items.map((e: any) => e.id)).toContain(target.id);
    const future = await h.admin("GET", `${base}?since=2999-01-01T00:00:00Z`);
    expect(future.body.items).toEqual([]);
    const until = await h.admin("GET", `${base}?until=${encodeURIComponent(all.body.items.at(-1).occurred_at)}`);
    expect(until.body.items).toEqual([]);
    // Pages of 7, read to the end, give exactly the full list.
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page: HttpResult = await h.admin("GET", `${base}?limit=7${cursor ? `&cursor=${cursor}` : ""}`);
      walked.push(...page.body.items.map((e: any) => e.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(walked).toEqual(all.body.items.map((e: any) => e.id));
    expect((await h.admin("GET", `${base}?actor_type=robot`)).body.error).toMatch(/^actor_type: /);
    expect((await h.admin("GET", `${base}?since=yesterday`)).body.error).toBe("since: must be an ISO 8601 timestamp");
    expect((await h.admin("GET", `${base}?colour=red`)).status).toBe(400);
  });

  it("read-only auditors may read; members may not; another workspace is 403 by path and sees none of these events", async () => {
    const ws = h.workspaceId;
    for (const [type, status] of [["readonly_auditor", 200], ["member", 403]] as const) {
      const email = `${type}@example.test`;
      const u = await h.admin("POST", `/uflow/v2/tenants/${ws}/users`, { email, username: type, password: "a long enough password 3" });
      await h.admin("PATCH", `/uflow/v2/tenants/${ws}/memberships/${u.body.id}`, { membership_type: type });
      const token = await h.login(email, "a long enough password 3", ws);
      secrets.push(token);
      const r = await h.request("GET", `/svc/v1/workspaces/${ws}/audit-events`, { token });
      expect(r.status, type).toBe(status);
      const g = await h.request("POST", "/graphql", { token, json: { query: "{ auditEvents(first: 2) { action actorType } }" } });
      if (status === 200) expect(g.body.data.auditEvents).toHaveLength(2);
      else expect(g.body.errors[0].extensions.code).toBe("FORBIDDEN");
    }
    const other = await h.createWorkspace("audit-other@example.test");
    expect((await h.request("GET", `/svc/v1/workspaces/${ws}/audit-events`, { token: other.token })).status).toBe(403);
    const theirs = await h.request("GET", `/svc/v1/workspaces/${other.workspaceId}/audit-events?limit=1000`, { token: other.token });
    expect(theirs.status).toBe(200);
    expect(theirs.body.items.every((e: any) => e.workspace_id === other.workspaceId)).toBe(true);
    const g = await h.request("POST", "/graphql", { token: other.token, json: { query: "{ auditEvents(first: 1000) { targetId } }" } });
    const mine = new Set((await h.db.auditEvent.findMany({ where: { tenantId: ws } })).map((e) => e.targetId));
    expect(g.body.data.auditEvents.filter((e: any) => mine.has(e.targetId) && e.targetId !== null)).toEqual([]);
  });
});

describe("cost and integrity", () => {
  it("the graph's list is one query (besides the caller's membership)", async () => {
    for (const name of ["Graph list 1", "Graph list 2", "Graph list 3"]) await h.admin("POST", "/uflow/v2/groups", { name });
    await h.services.integrations.fanout.drain(); // nothing of the writes' after-commit work in the count below
    statements.length = 0;
    const r = await h.request("POST", "/graphql", { token: h.adminToken, json: { query: '{ auditEvents(first: 50, filter: { action: "group.*" }) { action actorId targetId summary hash cursor } }' } });
    expect(r.body.data.auditEvents.length).toBeGreaterThan(2);
    expect(statements.filter((q) => /AuditEvent/.test(q))).toHaveLength(1);
    expect(statements.length).toBeLessThanOrEqual(2);
  });

  it("adds one statement to a write transaction, and the chain verifies", async () => {
    statements.length = 0;
    const r = await h.admin("POST", "/uflow/v2/groups", { name: "Counted statements" });
    expect(r.status).toBe(201);
    const audit = statements.filter((q) => /Audit(Event|Chain|Checkpoint)/.test(q));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatch(/^INSERT INTO `main`\.`AuditEvent`|INSERT INTO "AuditChain"/);
    const report = await verifyAuditTrail(h.db);
    expect(report.chains.filter((c) => !c.ok)).toEqual([]);
    expect(report.ok).toBe(true);
  });
});
