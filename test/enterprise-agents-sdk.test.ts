// The official client's CrossAppAccessProvider (@modelcontextprotocol/client), unmodified, against
// the sample MCP server protected by toolgate/sdk: the app exchanges the user's ID token at the test
// IdP's RFC 8693 endpoint for an ID-JAG, presents it at Toolgate's jwt-bearer grant, is told the
// connection waits for an administrator; after approval the same provider connects and calls tools.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, CrossAppAccessProvider, StreamableHTTPClientTransport, requestJwtAuthorizationGrant } from "@modelcontextprotocol/client";
import { startToolgate, type Harness } from "./helpers/harness";
import { startSampleServer, type SampleServer } from "../examples/sample-mcp-server/server";
import { readySample } from "./helpers/sdk-flow";
import { TestIdp } from "./helpers/test-idp";

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const ISSUER = "https://idp.sdk.example";

let h: Harness;
let sample: SampleServer;
let idp: TestIdp;
let mcpUrl: string;
let agent: { client_id: string; client_secret: string };
let role: string;

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } });
  const rs = await readySample(h);
  sample = await startSampleServer({ port: rs.port, toolgate: { issuer: h.url, resourceServerId: rs.id, introspectionSecret: rs.secret, introspectionCacheMs: 200, policyRefreshMs: 200, scopesSupported: ["notes:read"] } });
  mcpUrl = `${sample.url}/mcp`;
  role = (await h.admin("POST", "/svc/authmgr/roles", { name: "Note readers", grants: [{ resource_server_id: rs.id, scope_ids: ["notes:read"] }] })).body.id;
  const c = await h.admin("POST", `/svc/resource-servers/${rs.id}/clients`, { client_name: "Enterprise assistant", kind: "agent", redirect_uris: [], grant_types: [JWT_BEARER], allowed_scopes: ["notes:read", "notes:write"] });
  expect(c.status, c.text).toBe(201);
  agent = c.body;
  idp = await TestIdp.create(ISSUER);
  await idp.listen(agent.client_id);
  const t = await h.admin("POST", "/svc/oocmgr/id-jag-trusts", { name: "SDK IdP", issuer: ISSUER, jwks: idp.jwks(), allowed_algs: ["ES256"], jit_create_users: true });
  expect(t.status, t.text).toBe(201);
});
afterAll(async () => {
  await sample?.close();
  await idp?.close();
  await h?.close();
});

function provider(idToken: string) {
  return new CrossAppAccessProvider({
    assertion: async (ctx) =>
      (await requestJwtAuthorizationGrant({ tokenEndpoint: idp.tokenEndpoint, audience: ctx.authorizationServerUrl, resource: ctx.resourceUrl, idToken, clientId: idp.idpClientId, clientSecret: "idp-secret", scope: ctx.scope, fetchFn: ctx.fetchFn })).jwtAuthGrant,
    clientId: agent.client_id,
    clientSecret: agent.client_secret,
    expectedIssuer: h.config.publicUrl,
  });
}

describe("CrossAppAccessProvider end to end", () => {
  it("pending at first, then after approval lists and calls tools with the approved scope", async () => {
    const idToken = await idp.idToken("00u-dana", "dana@acme.example");
    const first = new Client({ name: "xaa", version: "1.0.0" });
    await expect(first.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider(idToken) }))).rejects.toThrow(/pending administrator approval/);
    expect(idp.exchanges.at(-1)).toMatchObject({ grant_type: "urn:ietf:params:oauth:grant-type:token-exchange", requested_token_type: "urn:ietf:params:oauth:token-type:id-jag", audience: h.config.publicUrl, resource: mcpUrl });
    const pending = (await h.admin("GET", "/svc/access-requests?status=pending")).body.items;
    expect(pending).toHaveLength(1);
    expect((await h.admin("POST", `/svc/access-requests/${pending[0].id}/approve`, { role_id: role })).status).toBe(200);

    const c = new Client({ name: "xaa", version: "1.0.0" });
    await c.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider(idToken) }));
    const tools = (await c.listTools()).tools.map((t) => t.name);
    expect(tools).toContain("list_notes");
    expect(tools).not.toContain("create_note");
    const listed = await c.callTool({ name: "list_notes", arguments: {} });
    expect(listed.isError).not.toBe(true);
    await c.close();
  });
});
