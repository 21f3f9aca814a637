// Connections per resource server (DESIGN "Clients and connections"), over real HTTP: one dynamic
// registration (no workspace) authorizes for a server of workspace A and a server of workspace B;
// the `resource` picks the server; each first authorization creates a connection listed with the
// server's clients; revoking the client from one server kills its tokens there at once and leaves
// the other working; removing a registration mode stops new tokens for that mode; scopes are the
// server's, narrowed by the user's bindings.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash, randomBytes } from "node:crypto";
import { startToolgate, type Harness } from "./helpers/harness";
import { authorizeCode, browser, exchangeCode, setUpSignIn, tokenRequest, type CodeFlow } from "./helpers/signin-flow";

const REDIRECT = "http://127.0.0.1/callback";
const ALICE = { email: "alice@a.example.test", password: "alice-password-1" };
const BOB = { email: "bob@b.example.test", password: "bob-password-1234" };
const INVALID_GRANT = { error: "invalid_grant", error_description: "the authorization grant is invalid, expired, revoked, or was issued to another client" };

let h: Harness;
let a: Awaited<ReturnType<typeof setUpSignIn>>;
let b: Awaited<ReturnType<typeof setUpSignIn>>;
let adminB: string;
let dcr: { clientId: string };

beforeAll(async () => {
  h = await startToolgate();
  a = await setUpSignIn(h.url, h.adminToken, { name: "Notes A", scopes: ["notes:read", "notes:write"], users: [ALICE], redirectUri: REDIRECT });
  const wsB = await h.createWorkspace("owner@b.example.test");
  adminB = wsB.token;
  b = await setUpSignIn(h.url, adminB, { name: "Files B", scopes: ["files:read"], users: [BOB], redirectUri: REDIRECT });
  const reg = await h.request("POST", "/oauth/register", {
    json: { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], client_name: "Claude-ish", application_type: "native" },
  });
  expect(reg.status).toBe(201);
  dcr = { clientId: reg.body.client_id };
});
afterAll(async () => h?.close());

const flow = (server: typeof a, user: typeof ALICE, scope = ""): CodeFlow => ({
  publicUrl: h.config.publicUrl,
  serverUrl: h.url,
  ...dcr,
  redirectUri: REDIRECT,
  resource: server.resource,
  scope,
  ...user,
});
async function connect(server: typeof a, user: typeof ALICE, scope = "") {
  const { code, verifier } = await authorizeCode(flow(server, user, scope));
  const r = await exchangeCode(flow(server, user, scope), code, verifier);
  expect(r.status).toBe(200);
  return r.body;
}
async function introspect(server: typeof a, token: string) {
  const r = await h.request("POST", "/oauth/introspect", { basic: [server.serverId, server.introspectionSecret], form: { token } });
  return r.body;
}
/** The authorization request's first answer (a page, or a redirect carrying an error). */
async function startAuthorization(params: Record<string, string>) {
  const url = new URL(`${h.config.publicUrl}/oauth/authorize`);
  const verifier = randomBytes(32).toString("base64url");
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: dcr.clientId,
    redirect_uri: REDIRECT,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state: "st",
    ...params,
  }).toString();
  return browser(h.config.publicUrl, h.url).open(url);
}
const listClients = (server: typeof a, token: string, query = "") => h.request("GET", `/svc/resource-servers/${server.serverId}/clients${query}`, { token });

describe("one registration, two servers in two workspaces", () => {
  let tokenA: Record<string, any>;
  let tokenB: Record<string, any>;

  it("the resource picks the server: a token for each, each active only at its own server", async () => {
    tokenA = await connect(a, ALICE);
    tokenB = await connect(b, BOB);
    // No scope asked: every scope of the server the user holds.
    expect(tokenA.scope).toBe("notes:read notes:write");
    expect(tokenB.scope).toBe("files:read");
    expect(await introspect(a, tokenA.access_token)).toMatchObject({ active: true, client_id: dcr.clientId, scope: "notes:read notes:write" });
    expect(await introspect(b, tokenB.access_token)).toMatchObject({ active: true, client_id: dcr.clientId, scope: "files:read" });
    expect(await introspect(b, tokenA.access_token)).toEqual({ active: false });
  });

  it("each first authorization created a connection, listed with the server's clients (and only there)", async () => {
    const listA = await listClients(a, h.adminToken);
    expect(listA.status).toBe(200);
    const mine = listA.body.items.find((c: any) => c.client_id === dcr.clientId);
    expect(mine).toMatchObject({
      client_name: "Claude-ish",
      client_name_verified: false,
      registration_mode: "dcr",
      kind: "agent",
      status: "approved",
      resource_server_id: a.serverId,
      workspace_id: h.workspaceId,
      scopes_granted: ["notes:read", "notes:write"],
      // The spec's "Active connection row": the role through which the scopes were granted, and who signed in.
      roles_granted: [{ role_id: expect.any(String), role_name: expect.stringMatching(/^Notes A role /) }],
      connected_user_id: a.userIds[0],
      last_connected_at: expect.any(String),
      first_connected_at: expect.any(String),
    });
    // The pre-registered client is listed too, as before, with what it holds there now (never null).
    const prereg = listA.body.items.find((c: any) => c.client_id === a.clientId);
    expect(prereg).toMatchObject({ registration_mode: "prereg", scopes_granted: ["notes:read", "notes:write"], roles_granted: [], connected_user_id: null });
    const listB = await listClients(b, adminB);
    expect(listB.body.items.find((c: any) => c.client_id === dcr.clientId)).toMatchObject({ status: "approved", resource_server_id: b.serverId });
    // Workspace B cannot see A's server at all.
    expect((await listClients(a, adminB)).status).toBe(404);
    const rows = await h.db.connection.findMany({ where: { clientId: dcr.clientId } });
    expect(rows.map((r) => [r.resourceServerId, r.status]).sort()).toEqual([[a.serverId, "approved"], [b.serverId, "approved"]].sort());
  });

  it("a pre-registered client's row names its service-account roles and the scopes they add, live", async () => {
    const server = await h.admin("POST", `/svc/resource-servers/${a.serverId}/scopes`, { id: "notes:sync", name: "Sync notes" });
    expect(server.status).toBe(201);
    const m2m = await h.admin("POST", `/svc/resource-servers/${a.serverId}/clients`, { client_name: "sync", kind: "m2m", redirect_uris: [], grant_types: ["client_credentials"], allowed_scopes: ["notes:read"] });
    const role = await h.admin("POST", "/svc/authmgr/roles", { name: "Notes admin", grants: [{ resource_server_id: a.serverId, scope_ids: ["notes:sync"] }] });
    const row = async () => (await listClients(a, h.adminToken)).body.items.find((c: any) => c.client_id === m2m.body.client_id);
    expect(await row()).toMatchObject({ scopes_granted: ["notes:read"], roles_granted: [] });
    const bound = await h.admin("POST", `/svc/clientms/clients/${m2m.body.client_id}/role-bindings`, { tenant_id: h.workspaceId, role_id: role.body.id });
    expect(bound.status).toBe(201);
    expect(await row()).toMatchObject({ scopes_granted: ["notes:read", "notes:sync"], roles_granted: [{ role_id: role.body.id, role_name: "Notes admin" }] });
    expect((await h.admin("GET", `/svc/resource-servers/${a.serverId}/clients/${m2m.body.client_id}`)).body.roles_granted).toEqual([{ role_id: role.body.id, role_name: "Notes admin" }]);
    // An expired binding grants nothing (the resolver's rule).
    await h.admin("DELETE", `/uflow/v2/role-bindings/${bound.body.id}`);
    await h.admin("POST", `/svc/clientms/clients/${m2m.body.client_id}/role-bindings`, { tenant_id: h.workspaceId, role_id: role.body.id, expires_at: "2020-01-01T00:00:00Z" });
    expect(await row()).toMatchObject({ scopes_granted: ["notes:read"], roles_granted: [] });
  });

  it("a second authorization reuses the connection (no second row) and stamps it", async () => {
    const before = await h.db.connection.findFirstOrThrow({ where: { clientId: dcr.clientId, resourceServerId: a.serverId } });
    await connect(a, ALICE, "notes:read");
    const after = await h.db.connection.findMany({ where: { clientId: dcr.clientId, resourceServerId: a.serverId } });
    expect(after).toHaveLength(1);
    expect(after[0]!.scopesGranted).toEqual(["notes:read"]);
    expect(after[0]!.lastConnectedAt.getTime()).toBeGreaterThanOrEqual(before.lastConnectedAt.getTime());
  });

  it("filters by kind and status like any client list", async () => {
    const ids = async (q: string) => (await listClients(a, h.adminToken, q)).body.items.map((c: any) => c.client_id);
    expect(await ids("?kind=agent")).toContain(dcr.clientId);
    expect(await ids("?kind=m2m")).not.toContain(dcr.clientId);
    expect(await ids("?status=approved")).toContain(dcr.clientId);
    expect(await ids("?status=revoked")).not.toContain(dcr.clientId);
  });

  it("revoking the client from server A revokes that connection only: A's tokens die at once, B's live on", async () => {
    const r = await h.admin("POST", `/svc/resource-servers/${a.serverId}/clients/${encodeURIComponent(dcr.clientId)}/revoke`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ client_id: dcr.clientId, status: "revoked", resource_server_id: a.serverId, revoked_at: expect.any(String) });
    expect(await introspect(a, tokenA.access_token)).toEqual({ active: false });
    expect(await introspect(b, tokenB.access_token)).toMatchObject({ active: true });

    const refreshA = await tokenRequest(h.url, dcr, { grant_type: "refresh_token", refresh_token: tokenA.refresh_token });
    expect(refreshA.status).toBe(400);
    expect(refreshA.body).toEqual(INVALID_GRANT);
    const refreshB = await tokenRequest(h.url, dcr, { grant_type: "refresh_token", refresh_token: tokenB.refresh_token });
    expect(refreshB.status).toBe(200);
    tokenB = refreshB.body;

    // A new authorization for A is refused back to the client; the client itself still exists.
    const again = await startAuthorization({ resource: a.resource });
    expect(again.status).toBe(302);
    expect(again.location?.searchParams.get("error")).toBe("access_denied");
    expect((await listClients(a, h.adminToken, "?status=revoked")).body.items.map((c: any) => c.client_id)).toContain(dcr.clientId);
    expect(await h.db.client.findUnique({ where: { clientId: dcr.clientId } })).toMatchObject({ status: "approved" });
  });

  it("workspace B cannot revoke through A's server, nor change a connected client's registration", async () => {
    expect((await h.request("POST", `/svc/resource-servers/${a.serverId}/clients/${dcr.clientId}/revoke`, { token: adminB })).status).toBe(404);
    const patch = await h.request("PATCH", `/svc/resource-servers/${b.serverId}/clients/${dcr.clientId}`, { token: adminB, json: { client_name: "renamed" } });
    expect(patch.status).toBe(409);
    expect(patch.body).toEqual({ error: "a dcr or cimd client manages its own registration; a workspace can only revoke its connection" });
  });

  it("removing dcr from B's registration_modes stops new tokens for dcr clients there; issued ones keep their expiry", async () => {
    const current = await h.request("GET", `/svc/resource-servers/${b.serverId}`, { token: adminB });
    const put = await h.request("PUT", `/svc/resource-servers/${b.serverId}`, {
      token: adminB,
      json: { name: current.body.name, public_base_url: current.body.public_base_url, protected_base_path: current.body.protected_base_path, registration_modes: ["prereg", "cimd"] },
    });
    expect(put.status).toBe(200);
    const refreshed = await tokenRequest(h.url, dcr, { grant_type: "refresh_token", refresh_token: tokenB.refresh_token });
    expect(refreshed.status).toBe(400);
    expect(refreshed.body).toEqual(INVALID_GRANT);
    expect(await introspect(b, tokenB.access_token)).toMatchObject({ active: true });
    const again = await startAuthorization({ resource: b.resource });
    expect(again.status).toBe(302);
    expect(again.location?.searchParams.get("error")).toBe("unauthorized_client");
    expect(again.location?.searchParams.get("error_description")).toBe("this resource server does not accept dcr clients (registration_modes)");
  });
});

describe("authorization requests of a client of no workspace", () => {
  it("needs a resource naming a live server", async () => {
    const none = await startAuthorization({});
    expect(none.location?.searchParams.get("error")).toBe("invalid_target");
    expect(none.location?.searchParams.get("error_description")).toBe("resource is required: it names the MCP server this client connects to");
    const unknown = await startAuthorization({ resource: "https://unknown.example.test/mcp" });
    expect(unknown.location?.searchParams.get("error")).toBe("invalid_target");
  });

  /** The sign-in page of an authorization request by `clientId` for server A (redirect to port 54321), in a new browser. */
  async function loginPageOf(clientId: string, extra: Record<string, string> = {}) {
    const url = new URL(`${h.config.publicUrl}/oauth/authorize`);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: "http://127.0.0.1:54321/callback",
      code_challenge: createHash("sha256").update("v".repeat(43)).digest("base64url"),
      code_challenge_method: "S256",
      resource: a.resource,
      ...extra,
    }).toString();
    const bw = browser(h.config.publicUrl, h.url);
    return { bw, login: await bw.open(url) };
  }

  it("shows the client name as unverified, and the server, workspace and scope descriptions on the consent page", async () => {
    const reg = await h.request("POST", "/oauth/register", { json: { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none", client_name: "Fresh <b>client</b>" } });
    const scope = await h.admin("POST", `/svc/resource-servers/${a.serverId}/scopes`, { id: "notes:admin", name: "Administer notes", description: "Delete anyone's notes" });
    expect(scope.status).toBe(201);
    const { bw, login } = await loginPageOf(reg.body.client_id, { scope: "notes:read notes:admin" });
    expect(login.status).toBe(200);
    expect(login.html).toContain("<strong><bdi>Fresh &lt;b&gt;client&lt;/b&gt;</bdi></strong> <em>(name not verified)</em>");
    const consent = await bw.submit(login, ALICE);
    expect(consent.status).toBe(200);
    expect(consent.html).toContain("<strong>Notes A</strong>");
    expect(consent.html).toContain("in the workspace\n<strong>Acme</strong>");
    expect(consent.html).toContain("<strong><bdi>127.0.0.1:54321</bdi></strong>");
    expect(consent.html).toContain("<li>Administer notes (<code>notes:admin</code>): Delete anyone&#39;s notes</li>");
    expect(consent.html).toContain("<code>notes:read</code>");
  });

  it("isolates what the client chose (name, client_id, resource, redirect host) on both pages, so a bidirectional control cannot reorder the sentence", async () => {
    const reg = await h.request("POST", "/oauth/register", { json: { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none", client_name: "Notes helper" } });
    // Registration now refuses these characters; a name stored before it did is still shown safely.
    const reversing = "Notes \u202Ereh\u2067lper";
    await h.db.client.update({ where: { clientId: reg.body.client_id }, data: { clientName: reversing } });
    const { bw, login } = await loginPageOf(reg.body.client_id);
    expect(login.html).toContain(`<p><strong><bdi>${reversing}</bdi></strong> <em>(name not verified)</em> wants to access <code><bdi>${a.resource}</bdi></code> on your behalf.</p>`);
    const consent = await bw.submit(login, ALICE);
    expect(consent.html).toContain(`<p><strong><bdi>${reversing}</bdi></strong> <em>(name not verified)</em> (client <code><bdi>${reg.body.client_id}</bdi></code>) asks to use`);
    expect(consent.html).toContain(`(<code><bdi>${a.resource}</bdi></code>)`);
    expect(consent.html).toContain("you will be sent to <strong><bdi>127.0.0.1:54321</bdi></strong>.");
  });
});
