// The new list screens cost the same SQL statements however many rows they show (no N+1), as
// test/cockpit-query-count.test.ts checks for the older ones: Settings → Identity providers and
// Access requests (their cockpit documents, as the page sends them), Settings → Trusts (its two
// REST reads) and the sign-in's provider listing, each answered for a small workspace and again
// after it has grown.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { observeQueries } from "../src/storage";
import { startToolgate, type Harness } from "./helpers/harness";
import { gql } from "./graphql/client";
import { startOidcProvider, type OidcProviderHandle } from "./helpers/upstream-idp";
import { TestIdp } from "./helpers/test-idp";
import { createServer, type ServerFixture } from "./helpers/oauth-fixtures";
import { AccessRequestsDocument, IdentityProvidersDocument } from "../cockpit/src/graphql/generated/graphql";

// Must run before the app creates its Prisma client: only clients created afterwards report queries.
const statements: string[] = [];
observeQueries((q) => statements.push(q.query));

const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const AGENT_ISSUER = "https://agents.acme.example";
let h: Harness;
let op: OidcProviderHandle;
let idp: TestIdp;
let files: ServerFixture;
let agent: { client_id: string; client_secret: string };

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } });
  op = await startOidcProvider(`${h.url}/svc/hmgr/callback`);
  idp = await TestIdp.create(AGENT_ISSUER);
  files = await createServer(h, { scopes_supported: ["files:read"] });
  const c = await h.admin("POST", `/svc/resource-servers/${files.id}/clients`, { client_name: "Agent", kind: "agent", redirect_uris: [], grant_types: [JWT_BEARER], allowed_scopes: ["files:read"] });
  expect(c.status, c.text).toBe(201);
  agent = c.body;
  // The trust the agents' ID-JAGs go through; unknown people are created at their first one.
  const t = await h.admin("POST", "/svc/oocmgr/id-jag-trusts", { name: "Agents", issuer: AGENT_ISSUER, jwks: idp.jwks(), jit_create_users: true });
  expect(t.status, t.text).toBe(201);
}, 120_000);
afterAll(async () => {
  await op?.close();
  await h?.close();
});

async function send(document: { toString(): string }, variables: Record<string, unknown>): Promise<any> {
  const r = await gql<any, Record<string, unknown>>(h, document.toString(), variables);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data;
}
async function read(path: string): Promise<any> {
  const r = await h.request("GET", path, path.includes("admin-providers") ? {} : { token: h.adminToken });
  expect(r.status, r.text).toBe(200);
  return r.body;
}

const SCREENS = {
  "Identity providers": async () => (await send(IdentityProvidersDocument, { first: 1000 })).identityProviders.length,
  "Access requests": async () => {
    const d = await send(AccessRequestsDocument, { first: 200, status: null });
    return d.accessRequests.length + d.roles.length;
  },
  Trusts: async () => (await read("/svc/oocmgr/id-jag-trusts")).items.length + (await read("/svc/spire/trust-domains")).items.length,
  "Sign-in providers": async () => (await read(`/svc/hmgr/admin-providers?workspace_id=${h.workspaceId}`)).items.length,
} as const;
type Screen = keyof typeof SCREENS;

/** Statements run answering one screen (read twice: the second with caches as warm as a user's). */
async function cost(screen: Screen) {
  await SCREENS[screen]();
  statements.length = 0;
  const rows = await SCREENS[screen]();
  return { count: statements.length, sql: [...statements], rows };
}

let n = 0;
async function grow(count: number) {
  for (let i = 0; i < count; i++) {
    n += 1;
    const p = await h.admin("POST", "/svc/oocmgr/providers", { name: `SSO ${n}`, issuer: op.issuer, client_id: op.clientId, client_secret: op.clientSecret, allowed_for: ["end_users", "admins"] });
    expect(p.status, p.text).toBe(201);
    const t = await h.admin("POST", "/svc/oocmgr/id-jag-trusts", { name: `Agents ${n}`, issuer: `${AGENT_ISSUER}/${n}`, jwks: idp.jwks() });
    expect(t.status, t.text).toBe(201);
    const w = await h.admin("POST", "/svc/spire/trust-domains", { name: `Domain ${n}`, trust_domain: `d${n}.acme.internal`, jwks: idp.jwks(), audience: "toolgate", rules: [{ pattern: `spiffe://d${n}.acme.internal/*`, client_id: agent.client_id }] });
    expect(w.status, w.text).toBe(201);
    const role = await h.admin("POST", "/svc/authmgr/roles", { name: `Role ${n}`, grants: [] });
    expect(role.status, role.text).toBe(201);
  }
  // One pending access request per new person (their first ID-JAG).
  for (let i = 0; i < count; i++) {
    n += 1;
    const assertion = await idp.mint({ sub: `00u-${n}`, email: `p${n}@acme.example`, aud: h.config.publicUrl, client_id: agent.client_id, resource: files.resource_url, scope: "files:read" });
    const r = await h.request("POST", "/oauth/token", { basic: [agent.client_id, agent.client_secret], form: { grant_type: JWT_BEARER, assertion } });
    expect(r.body.error_description, r.text).toMatch(/pending administrator approval/);
  }
}

describe("the new cockpit screens' SQL statements", () => {
  it("do not grow with the rows the screen shows", async () => {
    await grow(1);
    const small: Partial<Record<Screen, Awaited<ReturnType<typeof cost>>>> = {};
    for (const s of Object.keys(SCREENS) as Screen[]) small[s] = await cost(s);
    await grow(4);
    for (const s of Object.keys(SCREENS) as Screen[]) {
      const large = await cost(s);
      expect(large.rows, `${s} shows more rows`).toBeGreaterThan(small[s]!.rows);
      expect(small[s]!.count, s).toBeGreaterThan(0);
      expect(large.count, `${s}: ${large.rows} rows\n${large.sql.join("\n")}\n\n${small[s]!.rows} rows:\n${small[s]!.sql.join("\n")}`).toBe(small[s]!.count);
    }
  }, 180_000);
});
