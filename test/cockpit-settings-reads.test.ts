// The two small reads the cockpit's Settings and sign-in need (docs/cockpit.md):
// - GET /svc/settings/metrics: whether GET /metrics is served (TOOLGATE_METRICS_TOKEN set), for
//   owners and admins; never the token.
// - GET /svc/hmgr/admin-providers?workspace_id=: the providers a workspace offers administrators
//   ("Continue with"), unauthenticated: ids and names only, enabled and allowed for admins only,
//   per workspace; an unknown workspace answers like one without providers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, type Harness } from "./helpers/harness";
import { startOidcProvider, type OidcProviderHandle } from "./helpers/upstream-idp";

const TOKEN = "metrics-token-that-must-never-be-echoed-0123456789";
const PASSWORD = "auditor-password-1";
let on: Harness;
let off: Harness;
let op: OidcProviderHandle;

beforeAll(async () => {
  on = await startToolgate({ env: { TOOLGATE_METRICS_TOKEN: TOKEN, TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } });
  off = await startToolgate();
  op = await startOidcProvider(`${on.url}/svc/hmgr/callback`);
}, 120_000);
afterAll(async () => {
  await op?.close();
  await on?.close();
  await off?.close();
});

async function auditorToken(h: Harness): Promise<string> {
  const u = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: "audra@example.test", username: "audra", password: PASSWORD });
  expect(u.status, u.text).toBe(201);
  expect((await h.admin("PATCH", `/uflow/v2/tenants/${h.workspaceId}/memberships/${u.body.id}`, { membership_type: "readonly_auditor" })).status).toBe(200);
  return h.login("audra@example.test", PASSWORD, h.workspaceId);
}

describe("GET /svc/settings/metrics", () => {
  it("says whether /metrics is served, and the route agrees", async () => {
    const yes = await on.admin("GET", "/svc/settings/metrics");
    expect(yes.status, yes.text).toBe(200);
    expect(yes.body).toEqual({ enabled: true, path: "/metrics" });
    expect(yes.text).not.toContain(TOKEN);
    expect((await on.request("GET", "/metrics", { token: TOKEN })).status).toBe(200);

    const no = await off.admin("GET", "/svc/settings/metrics");
    expect(no.status, no.text).toBe(200);
    expect(no.body).toEqual({ enabled: false, path: "/metrics" });
    expect((await off.request("GET", "/metrics", { token: TOKEN })).status).toBe(404);
  });

  it("is for owners and admins only", async () => {
    expect((await on.request("GET", "/svc/settings/metrics")).status).toBe(401);
    const auditor = await auditorToken(on);
    const r = await on.request("GET", "/svc/settings/metrics", { token: auditor });
    expect(r.status).toBe(403);
    expect(r.text).not.toContain(TOKEN);
  });
});

describe("GET /svc/hmgr/admin-providers", () => {
  const create = async (h: Harness, body: Record<string, unknown>, token?: string) => {
    const r = await h.request("POST", "/svc/oocmgr/providers", { token: token ?? h.adminToken, json: { issuer: op.issuer, client_id: op.clientId, client_secret: op.clientSecret, ...body } });
    expect(r.status, r.text).toBe(201);
    return r.body.id as string;
  };
  const list = (workspaceId: string) => on.request("GET", `/svc/hmgr/admin-providers?workspace_id=${workspaceId}`);

  it("lists the enabled providers allowed for admins of that workspace, names only, without a token", async () => {
    const empty = await list(on.workspaceId);
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body).toEqual({ items: [] });

    const admins = await create(on, { name: "Acme SSO", allowed_for: ["end_users", "admins"] });
    await create(on, { name: "End users only", allowed_for: ["end_users"] });
    await create(on, { name: "Switched off", allowed_for: ["admins"], enabled: false });
    const other = await on.createWorkspace("owner@other.test");
    const foreign = await create(on, { name: "Other workspace SSO", allowed_for: ["admins"] }, other.token);

    const r = await list(on.workspaceId);
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.body).toEqual({ items: [{ id: admins, name: "Acme SSO" }] });
    // Nothing but id and name: no issuer, client id or secret state.
    expect(r.text).not.toContain(op.clientId);
    expect(r.text).not.toContain(op.issuer);
    expect((await list(other.workspaceId)).body).toEqual({ items: [{ id: foreign, name: "Other workspace SSO" }] });
  });

  it("answers an unknown workspace like one without providers, and refuses a malformed id", async () => {
    const unknown = await list("3f2c1d4e-5b6a-4c7d-8e9f-0a1b2c3d4e5f");
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual({ items: [] });
    expect((await list("not-a-uuid")).status).toBe(400);
    expect((await on.request("GET", "/svc/hmgr/admin-providers")).status).toBe(400);
  });
});
