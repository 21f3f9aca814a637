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
});
