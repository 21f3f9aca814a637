import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_EMAIL, ADMIN_PASSWORD, startToolgate, type Harness } from "./helpers/harness";

let h: Harness;
beforeAll(async () => {
  h = await startToolgate();
});
afterAll(async () => h?.close());

describe("admin login", () => {
  it("returns a bearer admin JWT carrying tenant_id and workspace_id", async () => {
    const r = await h.request("POST", "/svc/uflow/auth/login", { json: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["access_token", "expires_in", "token_type"]);
    expect(r.body.token_type).toBe("Bearer");
    expect(r.body.expires_in).toBe(3600);
    const claims = JSON.parse(Buffer.from(r.body.access_token.split(".")[1], "base64url").toString());
    expect(claims.tenant_id).toBe(h.workspaceId);
    expect(claims.workspace_id).toBe(h.workspaceId);
    expect(claims.sub).toBe(h.ownerId);
  });

  it("refuses a wrong password and an unknown user with the same answer", async () => {
    const wrong = await h.request("POST", "/svc/uflow/auth/login", { json: { email: ADMIN_EMAIL, password: "nope-nope" } });
    const unknown = await h.request("POST", "/svc/uflow/auth/login", { json: { email: "ghost@example.test", password: "nope-nope" } });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: "invalid email or password" });
    expect(unknown.body).toEqual(wrong.body);
  });

  it("names the missing field on bad input", async () => {
    const r = await h.request("POST", "/svc/uflow/auth/login", { json: { email: ADMIN_EMAIL } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: "password: is required" });
  });
});

describe("admin endpoints", () => {
  const path = () => `/uflow/v2/tenants/${h.workspaceId}/users`;

  it("answer 401 without a token and with a garbage token", async () => {
    expect((await h.request("POST", path(), { json: {} })).body).toEqual({ error: "missing bearer token" });
    const r = await h.request("POST", path(), { token: "abc.def.ghi", json: {} });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: "invalid or expired token" });
  });

  it("answer 401 tenant_id required in JWT for a signed token with no tenant", async () => {
    const token = await h.adminTokenWithoutTenant();
    const r = await h.request("POST", path(), { token, json: {} });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: "tenant_id required in JWT" });
  });

  it("creates a user with a member membership, and that member is 403 on admin writes", async () => {
    const r = await h.admin("POST", path(), { email: "Member@Example.test", username: "mem", password: "member-password" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ email: "member@example.test", username: "mem", membership: { membership_type: "member", status: "active", tenant_id: h.workspaceId } });
    expect(r.body).not.toHaveProperty("passwordHash");
    const memberToken = await h.login("member@example.test", "member-password");
    const denied = await h.request("POST", path(), { token: memberToken, json: { email: "x@example.test", username: "x" } });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatch(/owner or admin/);
    const dup = await h.admin("POST", path(), { email: "member@example.test", username: "again" });
    expect(dup.status).toBe(409);
  });

  it("answers 403 when the path names another workspace", async () => {
    const other = await h.createWorkspace("other-owner@example.test");
    const r = await h.admin("POST", `/uflow/v2/tenants/${other.workspaceId}/users`, { email: "y@example.test", username: "y" });
    expect(r.status).toBe(403);
  });
});

describe("health", () => {
  it("reports liveness and readiness", async () => {
    expect((await h.request("GET", "/healthz")).body).toEqual({ status: "ok" });
    expect((await h.request("GET", "/readyz")).body).toEqual({ status: "ready", database: "ok", cache_invalidation: "connected" });
  });
});
