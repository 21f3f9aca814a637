// Cross-cutting HTTP behaviour: body limits, malformed bodies, unknown routes, request ids.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, type Harness } from "./helpers/harness";

let h: Harness;
beforeAll(async () => {
  h = await startToolgate();
});
afterAll(async () => h?.close());

describe("HTTP basics", () => {
  it("refuses an oversized JSON body with 413 and writes nothing", async () => {
    const before = await h.db.resourceServer.count();
    const r = await h.request("POST", "/svc/resource-servers", {
      token: h.adminToken,
      json: { name: "x".repeat(200_000), public_base_url: "https://big.example.test", protected_base_path: "/" },
    });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ error: "request body too large" });
    expect(await h.db.resourceServer.count()).toBe(before);
  });

  it("answers 400 for malformed JSON", async () => {
    const r = await fetch(`${h.url}/svc/resource-servers`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.adminToken}`, "content-type": "application/json" },
      body: "{not json",
    });
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({ error: "request body is not valid JSON" });
  });

  it("answers 404 {error} for an unknown route and echoes a request id", async () => {
    const r = await h.request("GET", "/nope");
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: "not found" });
    expect(r.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await h.request("GET", "/healthz", { headers: { "x-request-id": "trace-123" } });
    expect(echoed.headers.get("x-request-id")).toBe("trace-123");
  });

  it("does not advertise the framework", async () => {
    expect((await h.request("GET", "/healthz")).headers.get("x-powered-by")).toBeNull();
  });

  it("answers 400, never 500, for a malformed percent-encoding in a path", async () => {
    const unauthenticated = await h.request("GET", "/svc/resource-servers/%E0%A4%A/sdk-policy");
    expect(unauthenticated.status).toBe(400);
    const admin = await h.request("GET", "/svc/resource-servers/%E0%A4%A", { token: h.adminToken });
    expect(admin.status).toBe(400);
    expect(admin.body).toEqual({ error: "malformed request" });
  });

  it("refuses NUL characters and absurd nesting as bad input before any database work", async () => {
    const login = await h.request("POST", "/svc/uflow/auth/login", { json: { email: "a\u0000@b.test", password: "x" } });
    expect(login.status).toBe(400);
    expect(login.body).toEqual({ error: "email: must not contain NUL characters or unpaired surrogates" });
    const authorize = await h.request("GET", "/oauth/authorize?client_id=%00x");
    expect(authorize.status).toBe(400);
    expect(authorize.body).toMatchObject({ error: "invalid_request" });
    const deep = JSON.parse(`{"name":"d","public_base_url":"https://deep.example.test","protected_base_path":"/","x":${"[".repeat(200)}${"]".repeat(200)}}`);
    const r = await h.request("POST", "/svc/resource-servers", { token: h.adminToken, json: deep });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/nests deeper than 32 levels/);
  });
});
