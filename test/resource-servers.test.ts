import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, type Harness } from "./helpers/harness";

let h: Harness;
beforeAll(async () => {
  h = await startToolgate();
});
afterAll(async () => h?.close());

const body = (over: Record<string, unknown> = {}) => ({
  name: "Files MCP",
  public_base_url: "https://mcp.example.test",
  protected_base_path: "/mcp",
  scopes_supported: ["files:read", "files:write"],
  ...over,
});

describe("resource server registration", () => {
  it("answers 201 with exactly the spec's fields", async () => {
    const r = await h.admin("POST", "/svc/resource-servers", body());
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(
      ["id", "introspection_secret", "issuer_url", "jwks_uri", "introspection_endpoint", "resource_url", "scope_matrix_url", "manifest_url", "validation_mode", "scopes_supported", "status"].sort(),
    );
    expect(r.body).toMatchObject({
      issuer_url: h.config.publicUrl,
      jwks_uri: `${h.url}/oauth/jwks`,
      introspection_endpoint: `${h.url}/oauth/introspect`,
      resource_url: "https://mcp.example.test/mcp",
      scope_matrix_url: `${h.url}/svc/resource-servers/${r.body.id}/sdk-policy`,
      manifest_url: `${h.url}/svc/resource-servers/${r.body.id}/sdk-manifest`,
      validation_mode: "auto",
      scopes_supported: ["files:read", "files:write"],
      status: "pending_scan",
    });
    expect(r.body.introspection_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const got = await h.admin("GET", `/svc/resource-servers/${r.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).not.toHaveProperty("introspection_secret");
    expect(JSON.stringify(got.body)).not.toContain(r.body.introspection_secret);
    expect(got.body).toMatchObject({ state: "pending_scan", scan_generation: 0, registration_modes: ["dcr", "cimd", "prereg"], setup_completed_at: null, badges: { discovered: false, not_launched: true } });
  });

  it("joins base URL and path with exactly one slash", async () => {
    const r = await h.admin("POST", "/svc/resource-servers", body({ public_base_url: "https://join.example.test/api/", protected_base_path: "/v1/mcp" }));
    expect(r.body.resource_url).toBe("https://join.example.test/api/v1/mcp");
  });

  it.each([
    [{ public_base_url: "ftp://x.test" }, "public_base_url"],
    [{ public_base_url: "https://x.test/?q=1" }, "public_base_url"],
    [{ public_base_url: "not a url" }, "public_base_url"],
    [{ public_base_url: "https://x.test/a b" }, "public_base_url"],
    [{ protected_base_path: "mcp" }, "protected_base_path"],
    [{ protected_base_path: "/a/../b" }, "protected_base_path"],
    [{ protected_base_path: "/a b" }, "protected_base_path"],
    [{ registration_modes: ["magic"] }, "registration_modes"],
    [{ registration_modes: [] }, "registration_modes"],
    [{ scopes_supported: ["has space"] }, "scopes_supported"],
    [{ name: "" }, "name"],
    [{ extra: 1 }, "body"],
  ])("refuses %j naming the field", async (over, field) => {
    const r = await h.admin("POST", "/svc/resource-servers", body({ public_base_url: "https://bad.example.test", ...over }));
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(new RegExp(`^${field}(\\.\\d+)?: `));
  });

  it("refuses a second live server with the same resource_url (X and X/ alike)", async () => {
    await h.admin("POST", "/svc/resource-servers", body({ public_base_url: "https://dup.example.test", protected_base_path: "/" }));
    const again = await h.admin("POST", "/svc/resource-servers", body({ public_base_url: "https://DUP.example.test/", protected_base_path: "/" }));
    expect(again.status).toBe(409);
  });

  it("lists as {items, count}, updates, rotates and soft-deletes", async () => {
    const created = (await h.admin("POST", "/svc/resource-servers", body({ public_base_url: "https://life.example.test" }))).body;
    const list = await h.admin("GET", "/svc/resource-servers");
    expect(list.body.count).toBe(list.body.items.length);
    expect(list.body.items.map((i: { id: string }) => i.id)).toContain(created.id);

    const upd = await h.admin("PUT", `/svc/resource-servers/${created.id}`, { name: "Renamed", protected_base_path: "/v2" });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ name: "Renamed", resource_url: "https://life.example.test/v2" });
    expect((await h.admin("PUT", `/svc/resource-servers/${created.id}`, {})).status).toBe(400);

    const rot = await h.admin("POST", `/svc/resource-servers/${created.id}/rotate-introspection-secret`);
    expect(rot.status).toBe(200);
    expect(rot.body.introspection_secret).not.toBe(created.introspection_secret);
    const registered = await h.services.registry.get(created.id);
    expect(h.services.registry.verifySecret(registered, created.introspection_secret)).toBeUndefined();
    expect(h.services.registry.verifySecret(registered, rot.body.introspection_secret)?.id).toBe(created.id);

    expect((await h.admin("DELETE", `/svc/resource-servers/${created.id}`)).status).toBe(204);
    expect((await h.admin("GET", `/svc/resource-servers/${created.id}`)).status).toBe(404);
    expect((await h.admin("DELETE", `/svc/resource-servers/${created.id}`)).status).toBe(404);
    expect(await h.services.registry.get(created.id)).toBeNull();
    const row = await h.db.resourceServer.findUnique({ where: { id: created.id } });
    expect(row?.deletedAt).not.toBeNull(); // kept, soft-deleted
  });

  it("isolates workspaces: another workspace's id is 404 and never listed", async () => {
    const mine = (await h.admin("POST", "/svc/resource-servers", body({ public_base_url: "https://iso.example.test" }))).body;
    const other = await h.createWorkspace("iso-owner@example.test");
    const as = (m: string, p: string, j?: unknown) => h.request(m, p, { token: other.token, json: j });
    expect((await as("GET", `/svc/resource-servers/${mine.id}`)).status).toBe(404);
    expect((await as("PUT", `/svc/resource-servers/${mine.id}`, { name: "x" })).status).toBe(404);
    expect((await as("DELETE", `/svc/resource-servers/${mine.id}`)).status).toBe(404);
    expect((await as("POST", `/svc/resource-servers/${mine.id}/rotate-introspection-secret`)).status).toBe(404);
    expect((await as("GET", "/svc/resource-servers")).body).toEqual({ items: [], count: 0, next_cursor: null });
    // The same URL may be protected by another workspace.
    expect((await as("POST", "/svc/resource-servers", body({ public_base_url: "https://iso.example.test" }))).status).toBe(201);
  });

  it("answers 400 for a malformed id", async () => {
    const r = await h.admin("GET", "/svc/resource-servers/not-a-uuid");
    expect(r.status).toBe(400);
  });
});
