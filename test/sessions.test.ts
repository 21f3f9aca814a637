// Browser sessions and the prompt policy (docs/openid-provider.md "Sessions", "Prompt policy"):
// one sign-in skips the password for the next authorization of any client; prompt=none/login/
// consent, max_age, login_hint, id_token_hint; remembered consent and forgetting it; the cookie's
// attributes, rotation and timeouts; sign-out here and everywhere; a suspension or a removal ends
// the person's sessions. The clock is manual, so timeouts are exact.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash, randomBytes } from "node:crypto";
import { ManualClock } from "../src/shared/clock";
import { sha256Base64url } from "../src/shared/crypto";
import { PROMPT_REASONS } from "../src/modules/signin";
import { ADMIN_EMAIL, ADMIN_PASSWORD, startToolgate, type Harness } from "./helpers/harness";
import { browser, claimsOf, setUpSignIn, tokenRequest, type Page } from "./helpers/signin-flow";

const clock = new ManualClock(new Date("2026-03-01T09:00:00Z"));
const IDLE_S = 1800;
const MAX_AGE_S = 7200;
let h: Harness;
let a: Awaited<ReturnType<typeof setUpSignIn>>;
let b: Awaited<ReturnType<typeof setUpSignIn>>;
const REDIRECT = "http://127.0.0.1:7777/callback";
const user = { email: "sam@example.test", password: "sam-password-1" };
const logs: Record<string, unknown>[] = [];

beforeAll(async () => {
  h = await startToolgate({ clock, logs, env: { TOOLGATE_SESSION_IDLE_SECONDS: String(IDLE_S), TOOLGATE_SESSION_MAX_AGE_SECONDS: String(MAX_AGE_S) } });
  a = await setUpSignIn(h.url, h.adminToken, { name: "Alpha", scopes: ["a:read"], users: [user], redirectUri: REDIRECT });
  b = await setUpSignIn(h.url, h.adminToken, { name: "Beta", scopes: ["b:read"], users: [], redirectUri: REDIRECT });
  const role = await h.admin("POST", "/svc/authmgr/roles", { name: "beta-reader", grants: [{ resource_server_id: b.serverId, scope_ids: ["b:read"] }] });
  await h.admin("POST", `/uflow/v2/users/${a.userIds[0]}/role-bindings`, { tenant_id: h.workspaceId, role_id: role.body.id });
});
afterAll(async () => h?.close());

type App = typeof a;

/** An admin call with a token minted now (the manual clock outruns the first token's hour). */
async function admin(method: string, path: string, json?: unknown) {
  return h.request(method, path, { token: await h.login(ADMIN_EMAIL, ADMIN_PASSWORD), json });
}

function authorizeUrl(app: App, extra: Record<string, string> = {}): { url: URL; verifier: string } {
  const verifier = randomBytes(32).toString("base64url");
  const url = new URL(`${h.url}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: app.clientId,
    redirect_uri: REDIRECT,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state: "st",
    scope: `openid ${app === a ? "a:read" : "b:read"}`,
    resource: app.resource,
    ...extra,
  }).toString();
  return { url, verifier };
}

const kindOf = (p: Page) => (p.status === 302 ? (p.location!.searchParams.get("error") ?? "code") : p.html.includes('name="password"') ? "login" : p.html.includes('value="allow"') ? "consent" : `page ${p.status}`);

/** Sign-in page -> password (-> consent -> allow): the browser ends with a session. */
async function signIn(br: ReturnType<typeof browser>, app: App, extra: Record<string, string> = {}): Promise<Page> {
  let p = await br.open(authorizeUrl(app, extra).url);
  if (kindOf(p) === "login") p = await br.submit(p, user);
  if (kindOf(p) === "consent") p = await br.submit(p, { decision: "allow" });
  return p;
}

describe("one session for every client", () => {
  it("sets an HttpOnly, SameSite=Lax cookie (not Secure on http), whose hash, not value, is stored", async () => {
    const br = browser(h.url, h.url, { cookies: true });
    const login = await br.open(authorizeUrl(a).url);
    const consent = await br.submit(login, user);
    const setCookie = consent.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^toolgate_session=[A-Za-z0-9_-]{43}; Max-Age=7200; Path=\/; HttpOnly; SameSite=Lax$/);
    const value = br.jar.get("toolgate_session")!;
    const row = await h.db.browserSession.findFirst({ where: { tokenHash: sha256Base64url(value) } });
    expect(row).toMatchObject({ userId: a.userIds[0], factors: ["pwd"] });
    expect(JSON.stringify(row)).not.toContain(value);
  });

  it("the next authorization of another client skips the password; prompt=none gives a code", async () => {
    const br = browser(h.url, h.url, { cookies: true });
    expect(kindOf(await signIn(br, a))).toBe("code");
    // Client B: signed in already; its consent is still to give.
    const first = await br.open(authorizeUrl(b).url);
    expect(kindOf(first)).toBe("consent");
    expect(kindOf(await br.submit(first, { decision: "allow" }))).toBe("code");
    // Consent remembered: no page at all, also with prompt=none.
    expect(kindOf(await br.open(authorizeUrl(b).url))).toBe("code");
    expect(kindOf(await br.open(authorizeUrl(b, { prompt: "none" }).url))).toBe("code");
  });

  it("prompt=none answers login_required without a session and consent_required without consent", async () => {
    const fresh = browser(h.url, h.url, { cookies: true });
    const none = await fresh.open(authorizeUrl(a, { prompt: "none" }).url);
    expect(none.location!.searchParams.get("error")).toBe("login_required");
    expect(none.location!.searchParams.get("iss")).toBe(h.url);
    const c = await setUpSignIn(h.url, h.adminToken, { name: "Gamma", scopes: ["c:read"], users: [], redirectUri: REDIRECT });
    const role = await h.admin("POST", "/svc/authmgr/roles", { name: "gamma-reader", grants: [{ resource_server_id: c.serverId, scope_ids: ["c:read"] }] });
    await h.admin("POST", `/uflow/v2/users/${a.userIds[0]}/role-bindings`, { tenant_id: h.workspaceId, role_id: role.body.id });
    await signIn(fresh, a);
    const noConsent = await fresh.open(authorizeUrl({ ...c, userIds: a.userIds }, { prompt: "none", scope: "openid c:read" }).url);
    expect(noConsent.location!.searchParams.get("error")).toBe("consent_required");
  });

  it("prompt=login asks again and rotates the cookie; the old one is dead", async () => {
    const br = browser(h.url, h.url, { cookies: true });
    await signIn(br, a);
    const before = br.jar.get("toolgate_session")!;
    const login = await br.open(authorizeUrl(a, { prompt: "login" }).url);
    expect(kindOf(login)).toBe("login");
    const done = await br.submit(login, user);
    expect(kindOf(done)).toBe("code");
    const after = br.jar.get("toolgate_session")!;
    expect(after).not.toBe(before);
    const old = browser(h.url, h.url, { cookies: true });
    old.jar.set("toolgate_session", before);
    expect(kindOf(await old.open(authorizeUrl(a, { prompt: "none" }).url))).toBe("login_required");
    // The decision is in the log with its stable reason.
    expect(logs.some((l) => (l.prompt as { reason?: string } | undefined)?.reason === "login_prompt")).toBe(true);
  });

  it("max_age: a sign-in older than max_age asks again; auth_time is the sign-in's", async () => {
    const br = browser(h.url, h.url, { cookies: true });
    const first = await signIn(br, a);
    const { verifier } = authorizeUrl(a);
    expect(kindOf(first)).toBe("code");
    clock.advance(120_000);
    expect(kindOf(await br.open(authorizeUrl(a, { max_age: "300" }).url))).toBe("code");
    expect(kindOf(await br.open(authorizeUrl(a, { max_age: "60" }).url))).toBe("login");
    expect((await br.open(authorizeUrl(a, { max_age: "60", prompt: "none" }).url)).location!.searchParams.get("error")).toBe("login_required");
    // auth_time in the ID token is the time of the sign-in, not of this authorization.
    const signedInAt = Math.floor(clock.now().getTime() / 1000) - 120;
    const { url, verifier: v } = authorizeUrl(a);
    const code = (await br.open(url)).location!.searchParams.get("code")!;
    const tokens = await tokenRequest(h.url, a, { grant_type: "authorization_code", code, code_verifier: v, redirect_uri: REDIRECT });
    expect(claimsOf(tokens.body.id_token).auth_time).toBe(signedInAt);
    expect(verifier).toBeTruthy();
  });

  it("login_hint pre-fills the sign-in page, and a hint naming another account asks to sign in", async () => {
    const br = browser(h.url, h.url, { cookies: true });
    const page = await br.open(authorizeUrl(a, { login_hint: user.email }).url);
    expect(page.html).toContain(`value="${user.email}"`);
    await br.submit(page, user).then((p) => (kindOf(p) === "consent" ? br.submit(p, { decision: "allow" }) : p));
    expect(kindOf(await br.open(authorizeUrl(a, { login_hint: user.email, prompt: "none" }).url))).toBe("code");
    expect(kindOf(await br.open(authorizeUrl(a, { login_hint: "someone@example.test", prompt: "none" }).url))).toBe("login_required");
    expect(kindOf(await br.open(authorizeUrl(a, { login_hint: "someone@example.test" }).url))).toBe("login");
  });

  it("idle and absolute timeouts end the session", async () => {
    const br = browser(h.url, h.url, { cookies: true });
    await signIn(br, a);
    clock.advance((IDLE_S - 60) * 1000);
    expect(kindOf(await br.open(authorizeUrl(a, { prompt: "none" }).url))).toBe("code"); // used: idle restarts
    clock.advance((IDLE_S - 60) * 1000);
    expect(kindOf(await br.open(authorizeUrl(a, { prompt: "none" }).url))).toBe("code");
    clock.advance((IDLE_S + 1) * 1000);
    expect(kindOf(await br.open(authorizeUrl(a, { prompt: "none" }).url))).toBe("login_required");
    // Absolute: kept busy, it still ends MAX_AGE after sign-in.
    await signIn(br, a, { prompt: "login" });
    for (let t = 0; t < MAX_AGE_S - 600; t += IDLE_S - 120) {
      clock.advance((IDLE_S - 120) * 1000);
      expect(kindOf(await br.open(authorizeUrl(a, { prompt: "none" }).url))).toBe("code");
    }
    clock.advance(MAX_AGE_S * 1000);
    expect(kindOf(await br.open(authorizeUrl(a, { prompt: "none" }).url))).toBe("login_required");
  });
});

describe("remembered consent", () => {
  it("prompt=consent shows the page anyway; a forgotten consent is asked again", async () => {
    const br = browser(h.url, h.url, { cookies: true });
    await signIn(br, b);
    expect(kindOf(await br.open(authorizeUrl(b).url))).toBe("code");
    expect(kindOf(await br.open(authorizeUrl(b, { prompt: "consent" }).url))).toBe("consent");
    const cookie = `toolgate_session=${br.jar.get("toolgate_session")}`;
    const list = await h.request("GET", "/svc/uflow/consents", { headers: { cookie } });
    expect(list.status).toBe(200);
    const mine = list.body.items.find((c: { client_id: string }) => c.client_id === b.clientId);
    expect(mine.scopes).toEqual(["b:read", "openid"]);
    // Forgetting needs the page's own origin (a cross-site request is refused).
    expect((await h.request("DELETE", `/svc/uflow/consents/${mine.id}`, { headers: { cookie, origin: "https://evil.example" } })).status).toBe(403);
    expect((await h.request("DELETE", `/svc/uflow/consents/${mine.id}`, { headers: { cookie } })).status).toBe(204);
    expect(kindOf(await br.open(authorizeUrl(b).url))).toBe("consent");
    expect(kindOf(await br.open(authorizeUrl(b, { prompt: "none" }).url))).toBe("consent_required");
  });

  it("asking for more than was allowed shows the consent page", async () => {
    expect((await admin("POST", `/svc/resource-servers/${b.serverId}/scopes`, { id: "b:write", name: "Write" })).status).toBe(201);
    expect((await admin("PATCH", `/svc/resource-servers/${b.serverId}/clients/${b.clientId}`, { allowed_scopes: ["b:read", "b:write"] })).status).toBe(200);
    const br = browser(h.url, h.url, { cookies: true });
    await signIn(br, b);
    expect(kindOf(await br.open(authorizeUrl(b, { scope: "openid b:read" }).url))).toBe("code");
    expect(kindOf(await br.open(authorizeUrl(b, { scope: "openid b:read b:write" }).url))).toBe("consent");
  });
});

describe("signing out, and access that ends", () => {
  it("DELETE /svc/uflow/session signs this browser out; DELETE /svc/uflow/sessions signs out everywhere", async () => {
    const one = browser(h.url, h.url, { cookies: true });
    const two = browser(h.url, h.url, { cookies: true });
    await signIn(one, a);
    await signIn(two, a);
    const cookieOf = (br: ReturnType<typeof browser>) => ({ cookie: `toolgate_session=${br.jar.get("toolgate_session")}` });
    const info = await h.request("GET", "/svc/uflow/session", { headers: cookieOf(one) });
    expect(info.body).toMatchObject({ user_id: a.userIds[0], workspace_id: h.workspaceId, factors: ["pwd"], amr: ["pwd"] });
    const out = await h.request("DELETE", "/svc/uflow/session", { headers: cookieOf(one) });
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    expect(kindOf(await one.open(authorizeUrl(a, { prompt: "none" }).url))).toBe("login_required");
    expect(kindOf(await two.open(authorizeUrl(a, { prompt: "none" }).url))).toBe("code");
    await signIn(one, a);
    const everywhere = await h.request("DELETE", "/svc/uflow/sessions", { headers: cookieOf(one) });
    expect(everywhere.body.ended).toBeGreaterThanOrEqual(2);
    for (const br of [one, two]) expect(kindOf(await br.open(authorizeUrl(a, { prompt: "none" }).url))).toBe("login_required");
  });

  it("suspending the end user, suspending or removing the member ends their sessions", async () => {
    const person = { email: "temp@example.test", password: "temp-password-1" };
    const t = await setUpSignIn(h.url, await h.login(ADMIN_EMAIL, ADMIN_PASSWORD), { name: "Temp", scopes: ["t:read"], users: [person], redirectUri: REDIRECT });
    const userId = t.userIds[0]!;
    const live = () => h.db.browserSession.count({ where: { userId, endedAt: null } });
    const signInAs = async () => {
      const br = browser(h.url, h.url, { cookies: true });
      let p = await br.open(authorizeUrl({ ...t, userIds: [userId] } as App, { scope: "openid t:read" }).url);
      p = await br.submit(p, person);
      expect(kindOf(p)).toMatch(/consent|code/);
    };
    await signInAs();
    expect(await live()).toBe(1);
    expect((await admin("POST", `/uflow/v2/tenants/${h.workspaceId}/end-users/${userId}/suspend`, { reason: "test" })).status).toBe(200);
    expect(await live()).toBe(0);
    await admin("POST", `/uflow/v2/tenants/${h.workspaceId}/end-users/${userId}/reactivate`);
    await signInAs();
    expect((await admin("PATCH", `/uflow/v2/tenants/${h.workspaceId}/memberships/${userId}`, { status: "suspended" })).status).toBe(200);
    expect(await live()).toBe(0);
    await admin("PATCH", `/uflow/v2/tenants/${h.workspaceId}/memberships/${userId}`, { status: "active" });
    await signInAs();
    expect((await admin("DELETE", `/uflow/v2/tenants/${h.workspaceId}/memberships/${userId}`)).status).toBe(204);
    expect(await live()).toBe(0);
  });

  it("a session of another workspace's user is no session here", async () => {
    const other = await h.createWorkspace("owner2@example.test");
    const c = await setUpSignIn(h.url, other.token, { name: "Other", scopes: ["o:read"], users: [{ email: user.email, password: user.password }], redirectUri: REDIRECT });
    const br = browser(h.url, h.url, { cookies: true });
    await signIn(br, a);
    const there = await br.open(authorizeUrl({ ...c } as App, { prompt: "none", scope: "openid o:read" }).url);
    expect(there.location!.searchParams.get("error")).toBe("login_required");
  });
});

it("the prompt policy's reasons are stable strings", () => {
  expect(PROMPT_REASONS).toEqual(["no_session", "login_prompt", "max_age", "id_token_hint", "login_hint", "second_factor_missing", "consent_prompt", "scopes_not_consented"]);
});

describe("https", () => {
  it("marks the cookie Secure with the __Host- prefix when the public URL is https", async () => {
    const s = await startToolgate({ env: { TOOLGATE_PUBLIC_URL: "https://auth.example.test" } });
    try {
      const t = await setUpSignIn(s.url, s.adminToken, { name: "Secure", scopes: ["s:read"], users: [user], redirectUri: REDIRECT });
      const br = browser("https://auth.example.test", s.url, { cookies: true });
      const verifier = randomBytes(32).toString("base64url");
      const url = new URL("https://auth.example.test/oauth/authorize");
      url.search = new URLSearchParams({ response_type: "code", client_id: t.clientId, redirect_uri: REDIRECT, code_challenge: createHash("sha256").update(verifier).digest("base64url"), code_challenge_method: "S256", scope: "s:read", resource: t.resource }).toString();
      const consent = await br.submit(await br.open(url), user);
      expect(consent.headers.get("set-cookie")).toMatch(/^__Host-toolgate_session=[^;]+; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
    } finally {
      await s.close();
    }
  });
});
