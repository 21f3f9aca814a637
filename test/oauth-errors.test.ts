// OAuth errors have a public part (code + the one description of the failure class) and an internal
// reason that is logged with the request id and never sent (modules/oauth/errors.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, type Harness } from "./helpers/harness";
import { createClient, createServer, type ClientFixture } from "./helpers/oauth-fixtures";

const logs: Record<string, unknown>[] = [];
let h: Harness;
let client: ClientFixture;
beforeAll(async () => {
  h = await startToolgate({ logs });
  client = await createClient(h, (await createServer(h)).id, { grant_types: ["client_credentials", "refresh_token"] });
});
afterAll(async () => h?.close());

async function token(form: Record<string, string>) {
  const r = await fetch(`${h.url}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString("base64")}` },
    body: new URLSearchParams(form),
  });
  return { status: r.status, requestId: r.headers.get("x-request-id"), body: await r.json() };
}

const refusal = (requestId: string | null) => logs.find((l) => l.requestId === requestId && l.msg === "request refused");

describe("OAuth errors", () => {
  it("a failed grant sends only the public description and logs its reason with the request id", async () => {
    const presented = "rt-that-was-never-issued-0123456789";
    const r = await token({ grant_type: "refresh_token", refresh_token: presented });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: "invalid_grant", error_description: "the authorization grant is invalid, expired, revoked, or was issued to another client" });
    expect(refusal(r.requestId)).toMatchObject({ error: "invalid_grant", reason: "refresh token unknown, expired, revoked, or issued to another client" });
    expect(JSON.stringify(logs)).not.toContain(presented);
  });

  it("two failures of one class look the same outside and differ in the log", async () => {
    const scope = await token({ grant_type: "client_credentials", scope: "not-allowed" });
    const target = await token({ grant_type: "client_credentials", resource: "https://nowhere.example.test/mcp" });
    expect(scope.body).toEqual({ error: "invalid_scope", error_description: "the requested scope is invalid, unknown, or not allowed for this client" });
    expect(target.body).toEqual({ error: "invalid_target", error_description: "the requested resource is invalid, unknown, or not available to this client" });
    expect(refusal(scope.requestId)?.reason).toBe("a requested scope is not among the client's allowed scopes");
    expect(refusal(target.requestId)?.reason).toBe("no live resource server with that resource in the client's workspace");
    const wrongSecret = await fetch(`${h.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "client_credentials", client_id: client.client_id, client_secret: "wrong-secret-value" }),
    });
    expect(await wrongSecret.json()).toEqual({ error: "invalid_client", error_description: "client authentication failed" });
    expect(refusal(wrongSecret.headers.get("x-request-id"))?.reason).toBe("unknown client_id or wrong secret");
    expect(JSON.stringify(logs)).not.toContain("wrong-secret-value");
    expect(JSON.stringify(logs)).not.toContain(client.client_secret);
  });
});
