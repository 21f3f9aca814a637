// POST /oauth/token, grant_type=jwt-bearer with an ID-JAG (docs/enterprise-agents.md): an approved
// agent connection, a fresh ES256 ID-JAG per request (signed here, in the load generator, with
// node:crypto), Basic client authentication. Read beside "token (client_credentials)" of the same
// run. No target: each request writes its jti (single use across instances). The issuer's keys are
// an inline JWKS here; a jwks_uri is cached the same way (one fetch, not one per request).
import { createSign, generateKeyPairSync, randomUUID } from "node:crypto";
import type { Scenario } from "../scenario";
import { createServer } from "../oauth-fixtures";

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const ISSUER = "https://idp.bench.example";
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

const scenario: Scenario = {
  name: "token (jwt-bearer, ID-JAG)",
  async setup(ctx) {
    const server = await createServer(ctx, "idjag");
    const role = await ctx.admin("POST", "/svc/authmgr/roles", { name: `bench idjag ${randomUUID().slice(0, 6)}`, grants: [{ resource_server_id: server.id, scope_ids: ["files:read"] }] });
    const client = await ctx.admin("POST", `/svc/resource-servers/${server.id}/clients`, { client_name: "bench agent", kind: "agent", redirect_uris: [], grant_types: [JWT_BEARER], allowed_scopes: ["files:read"] });
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    await ctx.admin("POST", "/svc/oocmgr/id-jag-trusts", { name: "bench IdP", issuer: ISSUER, jwks: { keys: [{ ...publicKey.export({ format: "jwk" }), kid: "b1", alg: "ES256" }] }, allowed_algs: ["ES256"], jit_create_users: true });
    const { issuer } = (await (await fetch(`${ctx.url}/.well-known/oauth-authorization-server`)).json()) as { issuer: string };
    const mint = () => {
      const now = Math.floor(Date.now() / 1000);
      const input = `${b64({ alg: "ES256", kid: "b1", typ: "oauth-id-jag+jwt" })}.${b64({ iss: ISSUER, sub: "00u-bench", email: "bench-agent-user@example.test", aud: issuer, client_id: client.client_id, resource: server.resource_url, scope: "files:read", jti: randomUUID(), iat: now, exp: now + 300 })}`;
      const sig = createSign("sha256").update(input).sign({ key: privateKey, dsaEncoding: "ieee-p1363" }).toString("base64url");
      return `grant_type=${encodeURIComponent(JWT_BEARER)}&assertion=${input}.${sig}`;
    };
    const headers = { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString("base64")}` };
    // The first exchange creates the access request; the owner approves it with the role.
    const first = await fetch(`${ctx.url}/oauth/token`, { method: "POST", headers, body: mint() });
    const answer = await first.text();
    const id = /request ([0-9a-f-]{36})/.exec(answer)?.[1];
    if (!id) throw new Error(`jwt-bearer bench: no pending access request (${first.status} ${answer})`);
    await ctx.admin("POST", `/svc/access-requests/${id}/approve`, { role_id: role.id });
    return {
      method: "POST",
      path: "/oauth/token",
      headers,
      body: mint(),
      requests: [{ method: "POST", path: "/oauth/token", headers, setupRequest: (req: Record<string, unknown>) => ({ ...req, body: mint() }) }],
    };
  },
};
export default scenario;
