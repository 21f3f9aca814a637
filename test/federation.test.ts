// Sign-in through upstream OpenID providers (issue 20, docs/federation.md, decision 0041), end to
// end over real HTTP: a real node-oidc-provider on loopback (its own key, client and accounts), a
// deliberately broken provider for the ID token refusals, Toolgate's sign-in page, the login proxy
// (/svc/hmgr/login, /svc/hmgr/callback), the consent page, the code exchange and introspection, in
// a browser that keeps cookies per origin and follows redirects. Nothing of Toolgate is mocked.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash, randomBytes } from "node:crypto";
import { observeQueries } from "../src/storage";
import { startToolgate, type Harness } from "./helpers/harness";
import { createServer as createRs, type ServerFixture } from "./helpers/oauth-fixtures";
import { claimsOf, formOf, tokenRequest } from "./helpers/signin-flow";
import { crossOriginBrowser, startBrokenProvider, startOidcProvider, type BrokenProviderHandle, type OidcProviderHandle } from "./helpers/upstream-idp";

// Every statement, so a test can prove the hot paths stay free of SQL after a federated sign-in.
const sql: string[] = [];
const stopObserving = observeQueries((q) => sql.push(q.query));

const REDIRECT = "http://127.0.0.1:9/app/callback";
let h: Harness;
let op: OidcProviderHandle;
let broken: BrokenProviderHandle;
let rs: ServerFixture;
let client: { client_id: string; client_secret: string };
let providerId: string;
let brokenId: string;
let engGroup: string;

const decode = (s: string) => s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e]!);

function authorizeUrl(opts: { clientId?: string; resource?: string; scope?: string } = {}) {
  const verifier = randomBytes(32).toString("base64url");
  const url = new URL(`${h.url}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: opts.clientId ?? client.client_id,
    redirect_uri: REDIRECT,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state: randomBytes(8).toString("hex"),
    scope: opts.scope ?? "notes:read openid",
    resource: opts.resource ?? rs.resource_url,
  }).toString();
  return { url, verifier };
}

/** The sign-in page's "Continue with <name>" link. */
function continueLink(html: string, name: string): URL | null {
  const m = new RegExp(`<a href="([^"]+)">Continue with ${name}</a>`).exec(html);
  return m ? new URL(decode(m[1]!), h.url) : null;
}

type Browser = ReturnType<typeof crossOriginBrowser>;

/** From the authorization request to the page or redirect after the upstream provider sent the browser back. */
async function throughProvider(b: Browser, name = "Acme SSO", auth = authorizeUrl()) {
  const login = await b.follow(auth.url);
  expect(login.status).toBe(200);
  const link = continueLink(login.html, name);
  if (!link) throw new Error(`no "Continue with ${name}" on the sign-in page:\n${login.html}`);
  const after = await b.follow(link, REDIRECT);
  return { after, auth, login };
}

/** Through the provider, the consent page (allow), the code exchange: the token answer. */
async function signIn(b: Browser, name = "Acme SSO") {
  const { after, auth } = await throughProvider(b, name);
  let done: Awaited<ReturnType<Browser["request"]>> = after;
  if (done.status === 200 && /Allow access/.test(done.html)) {
    const form = formOf({ url: done.url, status: 200, headers: done.headers, html: done.html });
    done = await b.request(form.action, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ ...form.fields, decision: "allow" }) });
  }
  const code = done.location?.searchParams.get("code");
  if (done.status !== 302 || !code) throw new Error(`no code: ${done.status} ${done.location ?? done.html}`);
  const token = await tokenRequest(h.url, { clientId: client.client_id, clientSecret: client.client_secret }, { grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: auth.verifier, resource: rs.resource_url });
  expect(token.status).toBe(200);
  return token.body;
}

async function introspect(token: string): Promise<Record<string, any>> {
  const r = await h.request("POST", "/oauth/introspect", { basic: [rs.id, rs.introspection_secret], form: { token } });
  return r.body;
}

async function userByEmail(email: string) {
  return h.db.user.findFirst({ where: { tenantId: h.workspaceId, email } });
}

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } });
  op = await startOidcProvider(`${h.config.publicUrl}/svc/hmgr/callback`);
  broken = await startBrokenProvider();
  rs = await createRs(h, { scopes_supported: ["notes:read", "notes:write"] });
  const c = await h.admin("POST", `/svc/resource-servers/${rs.id}/clients`, { client_name: "Notes app", kind: "human_app", redirect_uris: [REDIRECT], allowed_scopes: ["notes:read", "notes:write"] });
  expect(c.status).toBe(201);
  client = c.body;
  const role = await h.admin("POST", "/svc/authmgr/roles", { name: "reader", grants: [{ resource_server_id: rs.id, scope_ids: ["notes:read"] }] });
  const group = await h.admin("POST", "/uflow/v2/groups", { name: "engineers" });
  engGroup = group.body.id;
  expect((await h.admin("POST", `/uflow/v2/groups/${engGroup}/role-bindings`, { tenant_id: h.workspaceId, role_id: role.body.id })).status).toBe(201);
  op.accounts.set("ann-sub", { email: "ann@acme.test", email_verified: true, name: "Ann", groups: ["eng", "other"] });
}, 60_000);

afterAll(async () => {
  stopObserving();
  await op?.close();
  await broken?.close();
  await h?.close();
});

describe("provider configuration (/svc/oocmgr/providers)", () => {
  it("creates a provider after checking its discovery document; the secret is sealed and never shown again", async () => {
    const created = await h.admin("POST", "/svc/oocmgr/providers", {
      name: "Acme SSO",
      issuer: op.issuer,
      client_id: op.clientId,
      client_secret: op.clientSecret,
      scopes: "openid email profile groups",
      email_domains: ["acme.test"],
      trust_email: true,
      group_sync: [{ upstream: "eng", group_id: engGroup }],
    });
    expect(created.status, created.text).toBe(201);
    providerId = created.body.id;
    expect(created.body).toMatchObject({
      name: "Acme SSO",
      issuer: op.issuer,
      client_secret_set: true,
      enabled: true,
      jit_provisioning: true,
      allowed_for: ["end_users"],
      claim_mapping: { email: "email", name: "name", groups: "groups" },
      authorization_endpoint: `${op.issuer}/auth`,
      redirect_uri: `${h.config.publicUrl}/svc/hmgr/callback`,
    });
    expect(created.text).not.toContain(op.clientSecret);
    const row = await h.db.identityProvider.findUniqueOrThrow({ where: { id: providerId } });
    expect(row.clientSecretEnc).toMatch(/^v1\./);
    expect(row.clientSecretEnc).not.toContain(op.clientSecret);
    const listed = await h.admin("GET", "/svc/oocmgr/providers");
    expect(listed.body.count).toBe(1);
    expect(listed.text).not.toContain(op.clientSecret);
    // The audit trail records the creation without the secret.
    const events = await h.db.auditEvent.findMany({ where: { action: "identity_provider.created" } });
    expect(events).toHaveLength(1);
    expect(JSON.stringify(events)).not.toContain(op.clientSecret);
  });

  it("answers 400 naming what failed when the discovery document cannot be used", async () => {
    const base = { name: "Broken", client_id: broken.clientId, client_secret: broken.clientSecret };
    broken.discovery = "wrong_issuer";
    let r = await h.admin("POST", "/svc/oocmgr/providers", { ...base, issuer: broken.issuer });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/issuer mismatch/);
    broken.discovery = "no_s256";
    r = await h.admin("POST", "/svc/oocmgr/providers", { ...base, issuer: broken.issuer });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/no S256/);
    broken.discovery = "not_json";
    r = await h.admin("POST", "/svc/oocmgr/providers", { ...base, issuer: broken.issuer });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/not JSON/);
    r = await h.admin("POST", "/svc/oocmgr/providers", { ...base, issuer: "http://127.0.0.1:1" });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/cannot be fetched/);
    r = await h.admin("POST", "/svc/oocmgr/providers", { ...base, issuer: op.issuer, scopes: "email" });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/scopes/);
    broken.discovery = "ok";
    r = await h.admin("POST", "/svc/oocmgr/providers", { ...base, issuer: broken.issuer, allowed_for: ["end_users"] });
    expect(r.status, r.text).toBe(201);
    brokenId = r.body.id;
    expect(await h.db.identityProvider.count()).toBe(2);
  });

  it("updates (rotating the secret) and keeps another workspace out", async () => {
    const rotated = await h.admin("PATCH", `/svc/oocmgr/providers/${brokenId}`, { client_secret: "new-secret", email_domains: ["broken.example"] });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body).toMatchObject({ client_secret_set: true, email_domains: ["broken.example"] });
    expect(await h.services.identityProviders.secretOf(brokenId)).toBe("new-secret");
    await h.admin("PATCH", `/svc/oocmgr/providers/${brokenId}`, { client_secret: broken.clientSecret });
    const other = await h.createWorkspace("owner-b@other.test");
    expect((await h.request("GET", `/svc/oocmgr/providers/${providerId}`, { token: other.token })).status).toBe(404);
    expect((await h.request("PATCH", `/svc/oocmgr/providers/${providerId}`, { token: other.token, json: { enabled: false } })).status).toBe(404);
    expect((await h.request("DELETE", `/svc/oocmgr/providers/${providerId}`, { token: other.token })).status).toBe(404);
    expect((await h.request("GET", "/svc/oocmgr/providers", { token: other.token })).body).toMatchObject({ items: [], count: 0 });
    // Paginated like every admin list.
    const page = await h.admin("GET", "/svc/oocmgr/providers?limit=1");
    expect(page.body.items).toHaveLength(1);
    expect(page.body.items[0].name).toBe("Acme SSO");
    const next = await h.admin("GET", `/svc/oocmgr/providers?limit=1&cursor=${encodeURIComponent(page.body.next_cursor)}`);
    expect(next.body.items.map((p: { name: string }) => p.name)).toEqual(["Broken"]);
    expect((await h.admin("GET", "/svc/oocmgr/providers?limit=0")).status).toBe(400);
    expect((await h.request("GET", "/svc/oocmgr/providers")).status).toBe(401);
  });
});

describe("the graph", () => {
  const gql = (query: string, variables: Record<string, unknown> = {}, token = h.adminToken) => h.request("POST", "/graphql", { token, json: { query, variables } });

  it("lists, updates and refuses like REST (same service), never showing the secret", async () => {
    const listed = await gql(`{ identityProviders { id name issuer clientSecretSet emailDomains claimMapping { email groups } groupSync { upstream groupId } allowedFor redirectUri } }`);
    expect(listed.status).toBe(200);
    const acme = listed.body.data.identityProviders.find((p: { id: string }) => p.id === providerId);
    expect(acme).toMatchObject({ name: "Acme SSO", clientSecretSet: true, emailDomains: ["acme.test"], groupSync: [{ upstream: "eng", groupId: engGroup }], allowedFor: ["end_users"] });
    expect(listed.text).not.toContain(op.clientSecret);
    const updated = await gql(`mutation($id: ID!, $input: UpdateIdentityProviderInput!) { updateIdentityProvider(id: $id, input: $input) { name emailDomains } }`, {
      id: brokenId,
      input: { emailDomains: ["broken.example", "broken2.example"] },
    });
    expect(updated.body.data.updateIdentityProvider).toEqual({ name: "Broken", emailDomains: ["broken.example", "broken2.example"] });
    broken.discovery = "no_s256";
    const refused = await gql(`mutation($input: CreateIdentityProviderInput!) { createIdentityProvider(input: $input) { id } }`, {
      input: { name: "Nope", issuer: broken.issuer, clientId: "c" },
    });
    broken.discovery = "ok";
    expect(refused.body.errors[0].message).toMatch(/no S256/);
    expect(refused.body.errors[0].extensions.code).toBeTruthy();
    const other = await h.createWorkspace("owner-gql@other.test");
    const foreign = await gql(`query($id: ID!) { identityProvider(id: $id) { id } }`, { id: providerId }, other.token);
    expect(foreign.body.data.identityProvider).toBeNull();
  });
});

describe("sign-in through node-oidc-provider", () => {
  let annToken: string;

  it("creates the account just in time, syncs its groups, and goes on to consent and a code", async () => {
    op.next = { sub: "ann-sub" };
    const b = crossOriginBrowser();
    const tokens = await signIn(b);
    annToken = tokens.access_token;
    const ann = await userByEmail("ann@acme.test");
    expect(ann).toMatchObject({ username: "Ann", passwordHash: null });
    const link = await h.db.federatedIdentity.findFirstOrThrow({ where: { providerId, subject: "ann-sub" } });
    expect(link.userId).toBe(ann!.id);
    // The group sync added the member (eng -> engineers), so the role's scope is there.
    expect(await h.db.groupMember.count({ where: { groupId: engGroup, userId: ann!.id } })).toBe(1);
    const claims = await introspect(annToken);
    expect(claims).toMatchObject({ active: true, sub: ann!.id });
    expect(claims.scope.split(" ")).toContain("notes:read");
    // Toolgate's own ID token says the sign-in was federated.
    expect(claimsOf(tokens.id_token).amr).toEqual(["fed"]);
    // The same browser session as a password sign-in.
    const session = await h.db.browserSession.findFirstOrThrow({ where: { userId: ann!.id, endedAt: null } });
    expect(session.factors).toEqual(["fed"]);
    const event = await h.db.auditEvent.findFirstOrThrow({ where: { action: "signin.succeeded", actorId: ann!.id } });
    expect(JSON.parse(event.summary)).toMatchObject({ detail: { factor: "fed", provider_id: providerId, account: "created" } });
    // The hot path is untouched: a second introspection of the same token is answered from memory.
    sql.length = 0;
    expect((await introspect(annToken)).active).toBe(true);
    expect(sql).toEqual([]);
    // The graph says where the account came from.
    const graph = await h.request("POST", "/graphql", {
      token: h.adminToken,
      json: { query: `query($id: ID!) { user(id: $id) { identityProvider lastSignInAt federatedIdentities { providerId providerName subject } } }`, variables: { id: ann!.id } },
    });
    expect(graph.body.data.user).toMatchObject({ identityProvider: "Acme SSO", federatedIdentities: [{ providerId, providerName: "Acme SSO", subject: "ann-sub" }] });
    expect(Date.parse(graph.body.data.user.lastSignInAt)).toBeGreaterThan(Date.now() - 60_000);
    // So does effective access, over REST.
    const access = await h.admin("GET", `/svc/v1/applications/${rs.id}/effective-access?user_id=${ann!.id}`);
    expect(access.status, access.text).toBe(200);
    expect(access.body).toMatchObject({ identity_provider: "Acme SSO", last_sign_in_at: graph.body.data.user.lastSignInAt });
    // The flow cookie is gone after the callback.
    expect([...(b.jars.get(new URL(h.url).host)?.keys() ?? [])]).not.toContain("toolgate_federation");
  });

  it("a group removed upstream is removed at the next sign-in, and introspection drops its scope at once", async () => {
    op.accounts.set("ann-sub", { email: "ann@acme.test", email_verified: true, name: "Ann", groups: ["other"] });
    op.next = { sub: "ann-sub" };
    const ann = await userByEmail("ann@acme.test");
    await signIn(crossOriginBrowser());
    expect(await h.db.groupMember.count({ where: { groupId: engGroup, userId: ann!.id } })).toBe(0);
    const claims = await introspect(annToken);
    expect(claims.scope ?? "").not.toContain("notes:read");
    // Linked by (provider, sub): still one account, one link.
    expect(await h.db.user.count({ where: { email: "ann@acme.test" } })).toBe(1);
    expect(await h.db.federatedIdentity.count({ where: { subject: "ann-sub" } })).toBe(1);
  });

  it("picks up a new signing key at the provider (kid rotation: the JWKS is fetched again once)", async () => {
    const oldKid = op.kid;
    await op.restart();
    expect(op.kid).not.toBe(oldKid);
    op.next = { sub: "ann-sub" };
    const tokens = await signIn(crossOriginBrowser());
    expect(tokens.access_token).toBeTruthy();
  });

  it("home-realm discovery: an email of the provider's domain goes straight to it", async () => {
    const b = crossOriginBrowser();
    const login = await b.follow(authorizeUrl().url);
    const form = /<form method="get" action="([^"]+)">\s*<input type="hidden" name="ticket" value="([^"]+)">/.exec(login.html);
    expect(form).not.toBeNull();
    const go = new URL(decode(form![1]!), h.url);
    go.search = new URLSearchParams({ ticket: decode(form![2]!), login_hint: "bob@acme.test" }).toString();
    const r = await b.request(go);
    expect(r.status).toBe(302);
    expect(r.location!.origin).toBe(op.issuer);
    expect(r.location!.searchParams.get("login_hint")).toBe("bob@acme.test");
    expect(r.location!.searchParams.get("code_challenge_method")).toBe("S256");
    go.searchParams.set("login_hint", "bob@elsewhere.test");
    const none = await b.request(go);
    expect(none.status).toBe(404);
    expect(none.html).toMatch(/No identity provider of this workspace signs in this email address/);
  });

  it("an upstream access_denied ends on a page that says so and offers to start again", async () => {
    op.next = "deny";
    const { after } = await throughProvider(crossOriginBrowser());
    expect(after.status).toBe(401);
    expect(after.html).toMatch(/did not allow the sign-in \(access_denied\)/);
    expect(after.html).toMatch(/Start again/);
    expect(after.html).not.toMatch(/at .*\.ts:\d+/);
  });

  it("refuses a callback whose state does not match, one without the flow cookie, and a replayed one", async () => {
    op.next = { sub: "ann-sub" };
    const b = crossOriginBrowser();
    const login = await b.follow(authorizeUrl().url);
    const callbackPrefix = `${h.config.publicUrl}/svc/hmgr/callback`;
    const stopped = await b.follow(continueLink(login.html, "Acme SSO")!, callbackPrefix);
    const callback = stopped.location!;
    expect(callback.href.startsWith(callbackPrefix)).toBe(true);
    const flowCookie = b.jars.get(new URL(h.url).host)!.get("toolgate_federation")!;
    expect(flowCookie).toBeTruthy();

    const wrongState = new URL(callback);
    wrongState.searchParams.set("state", "not-the-state");
    const mismatch = await b.request(wrongState);
    expect(mismatch.status).toBe(400);
    expect(mismatch.html).toMatch(/state mismatch/);

    const noCookie = await fetch(callback, { redirect: "manual" });
    expect(noCookie.status).toBe(400);
    expect(await noCookie.text()).toMatch(/expired or was started in another browser/);

    // The mismatch consumed nothing: the right answer with the cookie still works...
    const cookieHeader = { cookie: `toolgate_federation=${flowCookie}` };
    const first = await fetch(callback, { redirect: "manual", headers: cookieHeader });
    // (Ann consented to this client before: the code comes at once.)
    expect(first.status).toBe(302);
    expect(new URL(first.headers.get("location")!).searchParams.get("code")).toBeTruthy();
    // ...once: replaying it (the same answer and the same cookie) is refused.
    const replay = await fetch(callback, { redirect: "manual", headers: cookieHeader });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toMatch(/already used/);
  });

  it("a suspended end user stays refused whatever the provider says", async () => {
    const ann = await userByEmail("ann@acme.test");
    expect((await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/end-users/${ann!.id}/suspend`, { reason: "left the team" })).status).toBe(200);
    op.next = { sub: "ann-sub" };
    const { after } = await throughProvider(crossOriginBrowser());
    expect(after.status).toBe(403);
    expect(after.html).toMatch(/suspended or has ended/);
    expect(await h.db.browserSession.count({ where: { userId: ann!.id, endedAt: null } })).toBe(0);
    expect((await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/end-users/${ann!.id}/reactivate`, {})).status).toBe(200);
  });
});

describe("password off for end users", () => {
  it("a workspace may turn the password form off; the providers stay, a hand-made password post is refused", async () => {
    const b = crossOriginBrowser();
    const before = await b.follow(authorizeUrl().url);
    const passwordForm = formOf({ url: before.url, status: 200, headers: before.headers, html: before.html });
    expect(before.html).toMatch(/type="password"/);
    const policy = `/uflow/v2/tenants/${h.workspaceId}/sign-in-policy`;
    expect((await h.admin("GET", policy)).body).toEqual({ end_user_password: true });
    expect((await h.admin("PUT", policy, { end_user_password: false })).body).toEqual({ end_user_password: false });
    const after = await crossOriginBrowser().follow(authorizeUrl().url);
    expect(after.status).toBe(200);
    expect(after.html).not.toMatch(/type="password"/);
    expect(continueLink(after.html, "Acme SSO")).not.toBeNull();
    const posted = await b.request(passwordForm.action, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ ...passwordForm.fields, email: "owner@example.test", password: "correct horse battery staple" }),
    });
    expect(posted.status).toBe(403);
    expect(posted.html).toMatch(/not with a password/);
    await h.admin("PUT", policy, { end_user_password: true });
  });
});

describe("linking rules (decision 0041)", () => {
  it("does not link an existing account by an unverified email, and changes nothing", async () => {
    const created = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: "carol@acme.test", username: "carol", password: "carol-password-1" });
    expect(created.status).toBe(201);
    op.accounts.set("carol-sub", { email: "carol@acme.test", email_verified: false, name: "Carol", groups: ["eng"] });
    op.next = { sub: "carol-sub" };
    const { after } = await throughProvider(crossOriginBrowser());
    expect(after.status).toBe(403);
    expect(after.html).toMatch(/already exists/);
    expect(await h.db.federatedIdentity.count({ where: { subject: "carol-sub" } })).toBe(0);
    expect(await h.db.groupMember.count({ where: { userId: created.body.id } })).toBe(0);
    expect(await h.db.user.count({ where: { email: "carol@acme.test" } })).toBe(1);
  });

  it("links it when the provider vouches for the email and the workspace trusts the provider", async () => {
    const carol = await userByEmail("carol@acme.test");
    op.accounts.set("carol-sub", { email: "carol@acme.test", email_verified: true, name: "Carol", groups: [] });
    op.next = { sub: "carol-sub" };
    await signIn(crossOriginBrowser());
    expect((await h.db.federatedIdentity.findFirstOrThrow({ where: { subject: "carol-sub" } })).userId).toBe(carol!.id);
  });

  it("does not link a verified email when the provider's emails are not trusted", async () => {
    await h.admin("PATCH", `/svc/oocmgr/providers/${providerId}`, { trust_email: false });
    await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: "dan@acme.test", username: "dan" });
    op.accounts.set("dan-sub", { email: "dan@acme.test", email_verified: true });
    op.next = { sub: "dan-sub" };
    const { after } = await throughProvider(crossOriginBrowser());
    expect(after.status).toBe(403);
    expect(await h.db.federatedIdentity.count({ where: { subject: "dan-sub" } })).toBe(0);
    await h.admin("PATCH", `/svc/oocmgr/providers/${providerId}`, { trust_email: true });
  });

  it("with just-in-time provisioning off, an unknown person is refused and nothing is written", async () => {
    await h.admin("PATCH", `/svc/oocmgr/providers/${providerId}`, { jit_provisioning: false });
    op.accounts.set("erin-sub", { email: "erin@acme.test", email_verified: true, groups: ["eng"] });
    op.next = { sub: "erin-sub" };
    const { after } = await throughProvider(crossOriginBrowser());
    expect(after.status).toBe(403);
    expect(after.html).toMatch(/does not create accounts/);
    expect(await userByEmail("erin@acme.test")).toBeNull();
    expect(await h.db.federatedIdentity.count({ where: { subject: "erin-sub" } })).toBe(0);
    await h.admin("PATCH", `/svc/oocmgr/providers/${providerId}`, { jit_provisioning: true });
  });
});

describe("ID token checks (a deliberately broken provider)", () => {
  const cases = [
    ["issuer", /iss claim/],
    ["audience", /aud claim/],
    ["nonce", /nonce/],
    ["unpublished_key", /key the provider does not publish/],
    ["expired", /expired/],
  ] as const;
  for (const [mangle, message] of cases) {
    it(`refuses an ID token with a bad ${mangle}`, async () => {
      broken.mangle = mangle;
      broken.sub = `broken-${mangle}`;
      const { after } = await throughProvider(crossOriginBrowser(), "Broken");
      expect(after.status).toBe(502);
      expect(after.html).toMatch(message);
      expect(await h.db.federatedIdentity.count({ where: { subject: broken.sub } })).toBe(0);
    });
  }

  it("accepts the same provider's well-formed ID token (the refusals above are the mangles, not the setup)", async () => {
    broken.mangle = "none";
    broken.sub = "broken-ok";
    const { after } = await throughProvider(crossOriginBrowser(), "Broken");
    expect(after.status, after.html).toBe(200);
    expect(after.html).toMatch(/Allow access/);
    // The provider's own amr/acr are kept on the link.
    expect(await h.db.federatedIdentity.findFirstOrThrow({ where: { subject: "broken-ok" } })).toMatchObject({ lastAmr: ["pwd", "hwk"], lastAcr: "urn:broken:loa2" });
  });
});

describe("admin SSO into the cockpit", () => {
  const adminLogin = (provider = providerId, workspace = h.workspaceId) =>
    new URL(`${h.url}/svc/hmgr/login?${new URLSearchParams({ provider, workspace_id: workspace, for: "admin" })}`);

  it("is refused for a provider not allowed for admins", async () => {
    const r = await crossOriginBrowser().follow(adminLogin());
    expect(r.status).toBe(400);
    expect(r.html).toMatch(/not offered for signing in to the cockpit/);
  });

  it("an owner linked by a vouched email gets an admin JWT through a one-time ticket; a member does not", async () => {
    expect((await h.admin("PATCH", `/svc/oocmgr/providers/${providerId}`, { allowed_for: ["end_users", "admins"] })).status).toBe(200);
    op.accounts.set("owner-sub", { email: "owner@example.test", email_verified: true, name: "Owner" });
    op.next = { sub: "owner-sub" };
    const done = await crossOriginBrowser().follow(adminLogin(), `${h.url}/cockpit/`);
    expect(done.status).toBe(302);
    expect(done.location!.pathname).toBe("/cockpit/");
    const ticket = done.location!.searchParams.get("sso_ticket")!;
    const token = await h.request("POST", "/svc/uflow/auth/sso", { json: { ticket } });
    expect(token.status, token.text).toBe(200);
    expect(claimsOf(token.body.access_token)).toMatchObject({ sub: h.ownerId, tenant_id: h.workspaceId });
    expect(claimsOf(token.body.access_token).amr).toContain("fed");
    expect((await h.request("GET", "/svc/oocmgr/providers", { token: token.body.access_token })).status).toBe(200);
    // One use only.
    expect((await h.request("POST", "/svc/uflow/auth/sso", { json: { ticket } })).status).toBe(401);
    // The password still works (no lockout through a broken provider).
    expect(await h.login("owner@example.test", "correct horse battery staple")).toBeTruthy();

    // Ann is a member (just-in-time end user): no cockpit for her.
    op.next = { sub: "ann-sub" };
    const refused = await crossOriginBrowser().follow(adminLogin(), `${h.url}/cockpit/`);
    expect(refused.status).toBe(403);
    expect(refused.html).toMatch(/does not include the cockpit/);
    // Nobody unknown is created through the admin door.
    op.accounts.set("stranger-sub", { email: "stranger@acme.test", email_verified: true });
    op.next = { sub: "stranger-sub" };
    const stranger = await crossOriginBrowser().follow(adminLogin(), `${h.url}/cockpit/`);
    expect(stranger.status).toBe(403);
    expect(await userByEmail("stranger@acme.test")).toBeNull();
  });
});

describe("two workspaces", () => {
  it("a provider of workspace A is neither offered nor accepted for workspace B's servers", async () => {
    const other = await h.createWorkspace("owner-iso@other.test");
    const rsB = await createRs(h, { scopes_supported: ["b:read"] }, other.token);
    const cB = await h.request("POST", `/svc/resource-servers/${rsB.id}/clients`, { token: other.token, json: { client_name: "B app", kind: "human_app", redirect_uris: [REDIRECT], allowed_scopes: ["b:read"] } });
    expect(cB.status).toBe(201);
    const b = crossOriginBrowser();
    const login = await b.follow(authorizeUrl({ clientId: cB.body.client_id, resource: rsB.resource_url, scope: "b:read" }).url);
    expect(login.status).toBe(200);
    expect(login.html).not.toMatch(/Continue with/);
    const ticket = formOf({ url: login.url, status: 200, headers: login.headers, html: login.html }).fields.ticket!;
    const forged = new URL(`${h.url}/svc/hmgr/login`);
    forged.search = new URLSearchParams({ provider: providerId, ticket }).toString();
    const r = await b.request(forged);
    expect(r.status).toBe(400);
    expect(r.html).toMatch(/not offered/);
    forged.search = new URLSearchParams({ ticket, login_hint: "ann@acme.test" }).toString();
    expect((await b.request(forged)).status).toBe(404);
  });
});

describe("private_key_jwt to the provider's token endpoint (RFC 7523 §2.2)", () => {
  let keyed: OidcProviderHandle | undefined;
  afterAll(async () => keyed?.close());

  it("a provider whose discovery does not list private_key_jwt is refused with 400 naming it; a secret with it is refused", async () => {
    broken.discovery = "no_private_key_jwt";
    try {
      const base = { name: "Broken keyed", issuer: broken.issuer, client_id: broken.clientId, token_endpoint_auth_method: "private_key_jwt" };
      let r = await h.admin("POST", "/svc/oocmgr/providers", base);
      expect(r.status, r.text).toBe(400);
      expect(r.body.error).toMatch(/token_endpoint_auth_methods_supported does not list private_key_jwt/);
      // Switching an existing provider is checked the same way.
      r = await h.admin("PATCH", `/svc/oocmgr/providers/${brokenId}`, { token_endpoint_auth_method: "private_key_jwt", client_secret: null });
      expect(r.status, r.text).toBe(400);
      expect(r.body.error).toMatch(/private_key_jwt/);
      expect((await h.db.identityProvider.findUniqueOrThrow({ where: { id: brokenId } })).tokenEndpointAuthMethod).toBe("client_secret_basic");
      r = await h.admin("POST", "/svc/oocmgr/providers", { ...base, client_secret: "s" });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatch(/client_secret/);
      r = await h.admin("POST", "/svc/oocmgr/providers", { ...base, token_endpoint_auth_method: "client_secret_jwt" });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatch(/token_endpoint_auth_method/);
    } finally {
      broken.discovery = "ok";
    }
    expect(await h.db.identityProvider.count({ where: { name: "Broken keyed" } })).toBe(0);
  });

  it("signs in just in time through a provider that authenticates Toolgate by its own key (no client secret)", async () => {
    const jwksUrl = `${h.config.publicUrl.replace(/\/+$/, "")}/oauth/jwks`;
    keyed = await startOidcProvider(`${h.config.publicUrl}/svc/hmgr/callback`, { tokenEndpointAuthMethod: "private_key_jwt", clientJwksUri: jwksUrl });
    keyed.accounts.set("kim-sub", { email: "kim@keyed.test", email_verified: true, name: "Kim" });
    const created = await h.admin("POST", "/svc/oocmgr/providers", { name: "Keyed SSO", issuer: keyed.issuer, client_id: keyed.clientId, token_endpoint_auth_method: "private_key_jwt" });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ token_endpoint_auth_method: "private_key_jwt", client_secret_set: false, client_jwks_uri: jwksUrl, jwks_uri: `${keyed.issuer}/jwks` });
    // The others say client_secret_basic and have no client JWKS to register.
    expect((await h.admin("GET", `/svc/oocmgr/providers/${providerId}`)).body).toMatchObject({ token_endpoint_auth_method: "client_secret_basic", client_jwks_uri: null });
    const graph = await h.request("POST", "/graphql", { token: h.adminToken, json: { query: `query($id: ID!) { identityProvider(id: $id) { tokenEndpointAuthMethod clientJwksUri clientSecretSet } }`, variables: { id: created.body.id } } });
    expect(graph.body.data.identityProvider).toEqual({ tokenEndpointAuthMethod: "private_key_jwt", clientJwksUri: jwksUrl, clientSecretSet: false });
    keyed.next = { sub: "kim-sub" };
    const tokens = await signIn(crossOriginBrowser(), "Keyed SSO");
    const kim = await userByEmail("kim@keyed.test");
    expect(kim).toMatchObject({ username: "Kim", passwordHash: null });
    expect(await h.db.federatedIdentity.count({ where: { providerId: created.body.id, subject: "kim-sub", userId: kim!.id } })).toBe(1);
    expect(await introspect(tokens.access_token)).toMatchObject({ active: true, sub: kim!.id });
  });
});
