// What a client that gets the URL or the content type wrong is told (src/rest/request-guards.ts):
// an unknown path is 404 before authentication (not "missing bearer token"), and a body of the
// wrong type is 415 naming the type to send, in the surface's error shape.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, ADMIN_EMAIL, ADMIN_PASSWORD, type Harness } from "./helpers/harness";
import { loadConfig } from "../src/config";

let h: Harness;
beforeAll(async () => {
  h = await startToolgate();
});
afterAll(async () => {
  await h?.close();
});

describe("unknown paths", () => {
  it.each(["/svc/nothing", "/svc/resource-servers/x/y/z", "/uflow/v3/users", "/uflow", "/svc"])("GET %s is 404 without a token", async (path) => {
    const r = await h.request("GET", path);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: "not found" });
  });

  it("a known path still asks for the token, and still answers with it", async () => {
    const r = await h.request("GET", "/svc/resource-servers");
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: "missing bearer token" });
    expect((await h.request("GET", "/svc/resource-servers", { token: h.adminToken })).status).toBe(200);
    expect((await h.request("GET", `/uflow/v2/tenants/${h.workspaceId}/memberships`, { token: h.adminToken })).status).toBe(200);
  });
});

describe("wrong content type: 415 naming the type", () => {
  it("on login (a form or no content type instead of JSON)", async () => {
    const form = await h.request("POST", "/svc/uflow/auth/login", { form: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
    expect(form.status).toBe(415);
    expect(form.body).toEqual({ error: "send the body as application/json (content-type: application/json); got application/x-www-form-urlencoded" });
    const none = await fetch(`${h.url}/svc/uflow/auth/login`, { method: "POST", body: Buffer.from(JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD })) });
    expect(none.status).toBe(415);
    expect(await none.json()).toEqual({ error: "send the body as application/json (content-type: application/json); got none" });
    const ok = await h.request("POST", "/svc/uflow/auth/login", { json: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
    expect(ok.status).toBe(200);
  });

  it("on admin writes, before authentication", async () => {
    const r = await h.request("POST", "/svc/resource-servers", { headers: { "content-type": "text/plain" } });
    expect(r.status).toBe(401); // no body: nothing to judge, the token is what is missing
    const typed = await fetch(`${h.url}/svc/resource-servers`, { method: "POST", headers: { "content-type": "text/plain", authorization: `Bearer ${h.adminToken}` }, body: "{}" });
    expect(typed.status).toBe(415);
    expect(await typed.json()).toEqual({ error: "send the body as application/json (content-type: application/json); got text/plain" });
    // A charset parameter is fine.
    const charset = await fetch(`${h.url}/svc/uflow/auth/login`, { method: "POST", headers: { "content-type": "application/json; charset=utf-8" }, body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }) });
    expect(charset.status).toBe(200);
  });

  it.each(["/oauth/token", "/oauth/introspect", "/oauth/revoke"])("on %s, in the OAuth error shape", async (path) => {
    const r = await fetch(`${h.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ grant_type: "client_credentials", token: "x" }) });
    expect(r.status).toBe(415);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(await r.json()).toEqual({
      error: "invalid_request",
      error_description: "send the body as application/x-www-form-urlencoded (content-type: application/x-www-form-urlencoded); got application/json",
    });
  });
});

describe("TOOLGATE_PUBLIC_URL", () => {
  it("drops a trailing slash, so the issuer and every URL built on it stay right", () => {
    expect(loadConfig({ TOOLGATE_PUBLIC_URL: "https://auth.example.com/" }).publicUrl).toBe("https://auth.example.com");
    expect(loadConfig({ TOOLGATE_PUBLIC_URL: "https://auth.example.com/tg//" }).publicUrl).toBe("https://auth.example.com/tg");
  });
});
