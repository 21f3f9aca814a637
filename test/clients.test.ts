// Pre-registered clients through the admin REST API: creation (secret once, peppered hash),
// validation, listing filters, the dashboard form, configuration, revocation, and workspace isolation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashSecret } from "../src/shared/crypto";
import { startToolgate, type Harness } from "./helpers/harness";
import { createClient, createServer, type ServerFixture } from "./helpers/oauth-fixtures";

let h: Harness;
let server: ServerFixture;
beforeAll(async () => {
  h = await startToolgate();
  server = await createServer(h);
});
afterAll(async () => h?.close());

const clientsPath = (id = server.id) => `/svc/resource-servers/${id}/clients`;
const VIEW_KEYS = [
  "allowed_scopes",
  "client_id",
  "client_name",
  "client_name_verified",
  "connected_user_id",
  "created_at",
  "description",
  "first_connected_at",
  "grant_types",
  "id_token_signed_response_alg",
  "kind",
  "last_connected_at",
  "last_used_at",
  "post_logout_redirect_uris",
  "redirect_uris",
  "registration_mode",
  "resource_server_id",
  "revoked_at",
  "roles_granted",
  "scopes_granted",
  "status",
  "tenant_id",
  "token_endpoint_auth_method",
  "token_lifetime",
  "workspace_id",
];

describe("pre-registration", () => {
  it("answers 201 with client_id and client_secret (shown only here), defaults filled in", async () => {
    const r = await h.admin("POST", clientsPath(), { client_name: "Nightly sync", redirect_uris: [] });
    expect(r.status).toBe(201);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(Object.keys(r.body).sort()).toEqual([...VIEW_KEYS, "client_id_issued_at", "client_secret", "client_secret_expires_at"].sort());
    expect(r.body).toMatchObject({
      client_name: "Nightly sync",
      kind: "m2m",
      registration_mode: "prereg",
      status: "approved",
      resource_server_id: server.id,
      workspace_id: h.workspaceId,
      redirect_uris: [],
      grant_types: ["client_credentials"],
      allowed_scopes: [],
      token_lifetime: 3600,
      token_endpoint_auth_method: "client_secret_basic",
      client_secret_expires_at: 0,
      revoked_at: null,
      last_used_at: null,
    });
    // Opaque, URL-safe id; 256-bit secret.
    expect(r.body.client_id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(r.body.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // Stored as a peppered hash, never in clear; never in a later answer.
    const row = await h.db.client.findUnique({ where: { clientId: r.body.client_id } });
    expect(row?.secretHash).toBe(hashSecret(h.services.secretPepper, r.body.client_secret));
    expect(row?.secretHash).not.toContain(r.body.client_secret);
    const got = await h.admin("GET", `${clientsPath()}/${r.body.client_id}`);
    expect(got.status).toBe(200);
    expect(Object.keys(got.body).sort()).toEqual(VIEW_KEYS);
    const list = await h.admin("GET", clientsPath());
    for (const text of [got.text, list.text]) {
      expect(text).not.toContain(r.body.client_secret);
      expect(text).not.toContain(row!.secretHash!);
    }
  });

  it("takes every optional field; non-m2m kinds default to the user-facing grants", async () => {
    const r = await h.admin("POST", clientsPath(), {
      client_name: "Desk app",
      redirect_uris: ["https://app.example.test/callback", "http://127.0.0.1:33418/", "http://localhost/cb", "http://[::1]:8080/cb"],
      kind: "human_app",
      description: "The desktop app",
      allowed_scopes: ["files:read"],
      token_lifetime: 86_400,
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ kind: "human_app", description: "The desktop app", grant_types: ["authorization_code", "refresh_token"], allowed_scopes: ["files:read"], token_lifetime: 86_400 });
    const explicit = await h.admin("POST", clientsPath(), { client_name: "Agent", redirect_uris: [], kind: "agent", grant_types: ["client_credentials"] });
    expect(explicit.body.grant_types).toEqual(["client_credentials"]);
  });

  it.each([
    [{ client_name: "" }, "client_name"],
    [{ redirect_uris: undefined }, "redirect_uris"],
    [{ redirect_uris: ["http://app.example.test/cb"] }, "redirect_uris.0"],
    [{ redirect_uris: ["https://app.example.test/cb#frag"] }, "redirect_uris.0"],
    [{ redirect_uris: ["/relative"] }, "redirect_uris.0"],
    [{ redirect_uris: ["https://user:pw@app.example.test/cb"] }, "redirect_uris.0"],
    [{ redirect_uris: ["https://a.test/cb", "https://a.test/cb"] }, "redirect_uris"],
    [{ kind: "robot" }, "kind"],
    [{ grant_types: ["password"] }, "grant_types.0"],
    [{ grant_types: [] }, "grant_types"],
    [{ token_lifetime: 299 }, "token_lifetime"],
    [{ token_lifetime: 86_401 }, "token_lifetime"],
    [{ token_lifetime: 3600.5 }, "token_lifetime"],
    [{ allowed_scopes: ["has space"] }, "allowed_scopes.0"],
    [{ client_secret: "mine" }, "body"],
  ])("refuses %j naming the field", async (over, field) => {
    const r = await h.admin("POST", clientsPath(), { client_name: "Bad", redirect_uris: [], ...over });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(new RegExp(`^${field.replace(/\./g, "\\.")}: `));
  });

  it("refuses allowed_scopes that are not scopes of that resource server, naming them", async () => {
    const other = await createServer(h, { scopes_supported: ["other:only"] });
    const r = await h.admin("POST", clientsPath(), { client_name: "X", redirect_uris: [], allowed_scopes: ["files:read", "other:only", "ghost"] });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: "allowed_scopes: not a scope of this resource server: other:only, ghost" });
    expect(other.id).toBeTruthy();
    expect(await h.db.client.count({ where: { clientName: "X" } })).toBe(0); // nothing written
  });

  it("refuses pre-registration when the server does not allow the prereg mode (409)", async () => {
    const dcrOnly = await createServer(h, { registration_modes: ["dcr", "cimd"] });
    const r = await h.admin("POST", clientsPath(dcrOnly.id), { client_name: "X", redirect_uris: [] });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ error: "pre-registration is not enabled for this resource server (registration_modes)" });
  });

  it("answers 404 for an unknown or deleted server and 400 for a malformed id", async () => {
    expect((await h.admin("POST", clientsPath("7d2c8c4e-1111-4a4a-9999-000000000000"), { client_name: "X", redirect_uris: [] })).status).toBe(404);
    const gone = await createServer(h);
    await h.admin("DELETE", `/svc/resource-servers/${gone.id}`);
    expect((await h.admin("POST", clientsPath(gone.id), { client_name: "X", redirect_uris: [] })).status).toBe(404);
    expect((await h.admin("GET", clientsPath(gone.id))).status).toBe(404);
    expect((await h.admin("GET", clientsPath("nope"))).status).toBe(400);
  });
});

describe("dashboard form POST /svc/clientms/clients", () => {
  it("creates the same record from Client Name, Client Type and Description", async () => {
    const r = await h.admin("POST", "/svc/clientms/clients", { client_name: "Billing worker", client_type: "m2m", description: "Nightly", resource_server_id: server.id });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ client_name: "Billing worker", kind: "m2m", description: "Nightly", grant_types: ["client_credentials"], registration_mode: "prereg", resource_server_id: server.id });
    expect(r.body.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const listed = await h.admin("GET", `${clientsPath()}?kind=m2m`);
    expect(listed.body.items.map((c: { client_id: string }) => c.client_id)).toContain(r.body.client_id);
  });

  it("validates the form", async () => {
    const bad = await h.admin("POST", "/svc/clientms/clients", { client_name: "X", client_type: "Machine", resource_server_id: server.id });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^client_type: /);
    const missing = await h.admin("POST", "/svc/clientms/clients", { client_name: "X", client_type: "cli" });
    expect(missing.body).toEqual({ error: "resource_server_id: is required" });
  });
});

describe("listing", () => {
  it("filters by kind and status and answers {items, count}", async () => {
    const rs = await createServer(h);
    const m2m = await createClient(h, rs.id, { kind: "m2m" });
    const cli = await createClient(h, rs.id, { kind: "cli" });
    const agent = await createClient(h, rs.id, { kind: "agent" });
    await h.admin("POST", `${clientsPath(rs.id)}/${agent.client_id}/revoke`);
    const ids = async (q: string) => {
      const r = await h.admin("GET", `${clientsPath(rs.id)}${q}`);
      expect(r.status).toBe(200);
      expect(r.body.count).toBe(r.body.items.length);
      return r.body.items.map((c: { client_id: string }) => c.client_id);
    };
    expect(await ids("")).toEqual([m2m.client_id, cli.client_id, agent.client_id]);
    expect(await ids("?kind=cli")).toEqual([cli.client_id]);
    expect(await ids("?status=approved")).toEqual([m2m.client_id, cli.client_id]);
    expect(await ids("?status=revoked")).toEqual([agent.client_id]);
    expect(await ids("?status=pending")).toEqual([]);
    expect(await ids("?kind=agent&status=approved")).toEqual([]);
    expect((await h.admin("GET", `${clientsPath(rs.id)}?status=gone`)).status).toBe(400);
    expect((await h.admin("GET", `${clientsPath(rs.id)}?kind=m2m&kind=cli`)).status).toBe(400);
  });
});

describe("configuration and revocation", () => {
  it("PATCH changes the configurable properties and validates them", async () => {
    const c = await createClient(h, server.id, { allowed_scopes: ["files:read"] });
    const path = `${clientsPath()}/${c.client_id}`;
    const r = await h.admin("PATCH", path, { allowed_scopes: ["files:read", "files:write"], token_lifetime: 600, description: "x", client_name: "Renamed" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ allowed_scopes: ["files:read", "files:write"], token_lifetime: 600, description: "x", client_name: "Renamed" });
    expect((await h.admin("PATCH", path, {})).status).toBe(400);
    expect((await h.admin("PATCH", path, { allowed_scopes: ["ghost"] })).body).toEqual({ error: "allowed_scopes: not a scope of this resource server: ghost" });
    expect((await h.admin("PATCH", path, { client_secret: "x" })).status).toBe(400);
    expect((await h.admin("PATCH", `${clientsPath()}/tgc_unknown`, { token_lifetime: 600 })).status).toBe(404);
  });

  it("revokes with POST .../revoke (200, idempotent) and DELETE (204); the record stays, listed as revoked", async () => {
    const a = await createClient(h, server.id);
    const r = await h.admin("POST", `${clientsPath()}/${a.client_id}/revoke`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ client_id: a.client_id, status: "revoked" });
    expect(r.body.revoked_at).not.toBeNull();
    expect((await h.admin("POST", `${clientsPath()}/${a.client_id}/revoke`)).body.revoked_at).toBe(r.body.revoked_at);
    expect((await h.admin("PATCH", `${clientsPath()}/${a.client_id}`, { token_lifetime: 600 })).status).toBe(409);

    const b = await createClient(h, server.id);
    expect((await h.admin("DELETE", `${clientsPath()}/${b.client_id}`)).status).toBe(204);
    expect((await h.admin("GET", `${clientsPath()}/${b.client_id}`)).body.status).toBe("revoked");
    expect((await h.admin("DELETE", `${clientsPath()}/tgc_unknown`)).status).toBe(404);
  });

  it("a client is reachable only under its own server", async () => {
    const other = await createServer(h);
    const c = await createClient(h, server.id);
    expect((await h.admin("GET", `${clientsPath(other.id)}/${c.client_id}`)).status).toBe(404);
    expect((await h.admin("POST", `${clientsPath(other.id)}/${c.client_id}/revoke`)).status).toBe(404);
  });
});

describe("scope deletion seam", () => {
  it("removeDeletedScope drops the scope from every client of that server only, in the caller's transaction", async () => {
    const rs = await createServer(h);
    const other = await createServer(h);
    const a = await createClient(h, rs.id, { allowed_scopes: ["files:read", "files:write"] });
    const b = await createClient(h, other.id, { allowed_scopes: ["files:read", "files:write"] });
    await h.db.$transaction((tx) => h.services.clients.removeDeletedScope(tx, h.workspaceId, rs.id, "files:write"));
    expect((await h.admin("GET", `${clientsPath(rs.id)}/${a.client_id}`)).body.allowed_scopes).toEqual(["files:read"]);
    expect((await h.admin("GET", `${clientsPath(other.id)}/${b.client_id}`)).body.allowed_scopes).toEqual(["files:read", "files:write"]);
  });
});

describe("permissions and workspace isolation", () => {
  it("another workspace's server and clients answer 404 and are never listed", async () => {
    const mine = await createClient(h, server.id);
    const other = await h.createWorkspace("clients-iso@example.test");
    const as = (m: string, p: string, j?: unknown) => h.request(m, p, { token: other.token, json: j });
    expect((await as("GET", clientsPath())).status).toBe(404);
    expect((await as("POST", clientsPath(), { client_name: "X", redirect_uris: [] })).status).toBe(404);
    expect((await as("GET", `${clientsPath()}/${mine.client_id}`)).status).toBe(404);
    expect((await as("PATCH", `${clientsPath()}/${mine.client_id}`, { token_lifetime: 600 })).status).toBe(404);
    expect((await as("POST", `${clientsPath()}/${mine.client_id}/revoke`)).status).toBe(404);
    expect((await as("DELETE", `${clientsPath()}/${mine.client_id}`)).status).toBe(404);
    expect((await as("POST", "/svc/clientms/clients", { client_name: "X", client_type: "m2m", resource_server_id: server.id })).status).toBe(404);

    // Their own server lists only their own clients.
    const theirs = await createServer(h, {}, other.token);
    const theirClient = await createClient(h, theirs.id, {}, other.token);
    const list = await as("GET", clientsPath(theirs.id));
    expect(list.body).toMatchObject({ count: 1, items: [{ client_id: theirClient.client_id, workspace_id: other.workspaceId }] });
    expect((await h.admin("GET", clientsPath(theirs.id))).status).toBe(404);
    expect((await h.admin("GET", `${clientsPath()}/${mine.client_id}`)).body.status).toBe("approved"); // untouched
  });

  it("a plain member may not create or list clients (403)", async () => {
    const email = "member-clients@example.test";
    await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email, username: "m", password: "member password 1" });
    const token = await h.login(email, "member password 1");
    expect((await h.request("POST", clientsPath(), { token, json: { client_name: "X", redirect_uris: [] } })).status).toBe(403);
    expect((await h.request("GET", clientsPath(), { token })).status).toBe(403);
  });
});
