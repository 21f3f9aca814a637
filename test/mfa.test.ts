// Second factors (docs/operations.md "Second factors"): TOTP (RFC 6238) against the RFC's test
// vectors, with otplib as the person's authenticator app; enrolment, confirmation, recovery codes,
// disabling; admin login answering mfa_required with a ticket; codes single-use and throttled like
// passwords; the workspace's rule for owners and admins (asked to enrol, never locked out); the
// end-user sign-in's one-time-code step; the CLI reset. The clock is manual: steps are exact.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash, randomBytes } from "node:crypto";
import { generate } from "otplib";
import { URI } from "otpauth";
import { ManualClock } from "../src/shared/clock";
import { matchingStep } from "../src/modules/signin/mfa/totp";
import { ADMIN_EMAIL, ADMIN_PASSWORD, startToolgate, type Harness } from "./helpers/harness";
import { browser, claimsOf, setUpSignIn, tokenRequest } from "./helpers/signin-flow";

// RFC 6238 Appendix B, SHA-1: the seed is the ASCII string "12345678901234567890".
const RFC_SEED_BASE32 = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
const RFC_VECTORS: Array<[number, string]> = [
  [59, "94287082"],
  [1111111109, "07081804"],
  [1111111111, "14050471"],
  [1234567890, "89005924"],
  [2000000000, "69279037"],
  [20000000000, "65353130"],
];

describe("RFC 6238 test vectors", () => {
  it("the test's authenticator (otplib) produces the RFC's codes", async () => {
    for (const [t, code] of RFC_VECTORS) expect(await generate({ secret: RFC_SEED_BASE32, digits: 8, epoch: t })).toBe(code);
  });

  it("Toolgate accepts the RFC's codes (6 digits: the last six of the 8-digit values) at their time, in their step", () => {
    for (const [t, code] of RFC_VECTORS) {
      const at = new Date(t * 1000);
      expect(matchingStep(RFC_SEED_BASE32, code.slice(2), at), String(t)).toBe(Math.floor(t / 30));
      // One step of drift is accepted either way (RFC 6238 §5.2); two are not.
      expect(matchingStep(RFC_SEED_BASE32, code.slice(2), new Date((t + 30) * 1000))).toBe(Math.floor(t / 30));
      expect(matchingStep(RFC_SEED_BASE32, code.slice(2), new Date((t + 61) * 1000))).toBeNull();
    }
  });
});

const clock = new ManualClock(new Date("2026-04-01T08:00:00Z"));
let h: Harness;

beforeAll(async () => {
  h = await startToolgate({ clock });
});
afterAll(async () => h?.close());

/** The authenticator app: the code of `secret` now (the server's clock). */
const codeNow = (secret: string) => generate({ secret, epoch: Math.floor(clock.now().getTime() / 1000) });

async function login(email: string, password: string, address?: string) {
  return h.request("POST", "/svc/uflow/auth/login", { json: { email, password }, headers: address ? { "x-forwarded-for": address } : {} });
}

async function enrol(token: string): Promise<{ secret: string; recovery: string[] }> {
  const e = await h.request("POST", "/svc/uflow/mfa/totp/enroll", { token });
  expect(e.status).toBe(200);
  const uri = URI.parse(e.body.otpauth_uri);
  expect(e.body.otpauth_uri).toMatch(/^otpauth:\/\/totp\//);
  expect(uri).toMatchObject({ algorithm: "SHA1", digits: 6, period: 30 });
  expect(e.body.qr_code).toMatch(/^data:image\/svg\+xml;base64,/);
  expect(Buffer.from(e.body.qr_code.split(",")[1], "base64").toString()).toContain("<svg");
  const confirmed = await h.request("POST", "/svc/uflow/mfa/totp/confirm", { token, json: { code: await codeNow(e.body.secret) } });
  expect(confirmed.status).toBe(200);
  expect(confirmed.body.recovery_codes).toHaveLength(10);
  for (const c of confirmed.body.recovery_codes) expect(c).toMatch(/^[0-9a-z]{5}-[0-9a-z]{5}$/);
  return { secret: e.body.secret, recovery: confirmed.body.recovery_codes };
}

describe("admin login with TOTP", () => {
  let ownerToken: string;
  let secret: string;
  let recovery: string[];

  it("enrols: the secret encrypted at rest, the first code turns it on", async () => {
    ownerToken = h.adminToken;
    ({ secret, recovery } = await enrol(ownerToken));
    const row = await h.db.totpFactor.findUnique({ where: { userId: h.ownerId } });
    expect(row!.confirmedAt).not.toBeNull();
    expect(row!.secretEnc).not.toContain(secret);
    const stored = await h.db.recoveryCode.findMany({ where: { userId: h.ownerId } });
    expect(stored).toHaveLength(10);
    for (const r of recovery) expect(JSON.stringify(stored)).not.toContain(r.replace("-", ""));
    expect((await h.request("GET", "/svc/uflow/mfa", { token: ownerToken })).body).toEqual({
      totp: { enrolled: true, confirmed_at: clock.now().toISOString(), recovery_codes_left: 10 },
      passkeys: 0,
    });
    // Enrolling again while one is on: 409.
    expect((await h.request("POST", "/svc/uflow/mfa/totp/enroll", { token: ownerToken })).status).toBe(409);
    // The audit trail names the enrolment and its confirmation, never the secret.
    const events = await h.db.auditEvent.findMany({ where: { targetType: "totp_factor" }, orderBy: { seq: "asc" } });
    expect(events.map((e) => e.action)).toEqual(["totp_factor.created", "totp_factor.updated"]);
    expect(events[0]).toMatchObject({ actorType: "user", actorId: h.ownerId, tenantId: h.workspaceId });
    expect(JSON.stringify(events)).not.toContain(row!.secretEnc);
  });

  it("the password alone gets no token: mfa_required with a ticket; the code gives an admin JWT whose amr says so", async () => {
    clock.advance(60_000);
    const first = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    expect(first.status).toBe(401);
    expect(first.body).toMatchObject({ error: "mfa_required", factors: ["otp"], expires_in: 300 });
    expect(first.body.access_token).toBeUndefined();
    const wrong = await h.request("POST", "/svc/uflow/auth/mfa", { json: { mfa_ticket: first.body.mfa_ticket, code: "000000" } });
    expect(wrong.status).toBe(401);
    const code = await codeNow(secret);
    const ok = await h.request("POST", "/svc/uflow/auth/mfa", { json: { mfa_ticket: first.body.mfa_ticket, code } });
    expect(ok.status).toBe(200);
    expect(claimsOf(ok.body.access_token).amr).toEqual(["mfa", "otp", "pwd"]);
    expect((await h.request("GET", "/svc/resource-servers", { token: ok.body.access_token })).status).toBe(200);
    // The ticket mints one token; the same code (same step) is refused with a new ticket.
    expect((await h.request("POST", "/svc/uflow/auth/mfa", { json: { mfa_ticket: first.body.mfa_ticket, code } })).status).toBe(401);
    const second = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    const replay = await h.request("POST", "/svc/uflow/auth/mfa", { json: { mfa_ticket: second.body.mfa_ticket, code } });
    expect(replay.status).toBe(401);
    expect(replay.body.error).toBe("invalid or already used code");
    // The next step's code works.
    clock.advance(30_000);
    expect((await h.request("POST", "/svc/uflow/auth/mfa", { json: { mfa_ticket: second.body.mfa_ticket, code: await codeNow(secret) } })).status).toBe(200);
    // A ticket expires after five minutes.
    const third = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    clock.advance(301_000);
    expect((await h.request("POST", "/svc/uflow/auth/mfa", { json: { mfa_ticket: third.body.mfa_ticket, code: await codeNow(secret) } })).body.error).toMatch(/invalid or expired/);
  });

  it("a recovery code works once", async () => {
    const t = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    const used = await h.request("POST", "/svc/uflow/auth/mfa", { json: { mfa_ticket: t.body.mfa_ticket, code: recovery[0]!.toUpperCase() } });
    expect(used.status).toBe(200);
    expect(claimsOf(used.body.access_token).amr).toEqual(["mfa", "otp", "pwd"]);
    const again = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    expect((await h.request("POST", "/svc/uflow/auth/mfa", { json: { mfa_ticket: again.body.mfa_ticket, code: recovery[0]! } })).status).toBe(401);
    expect((await h.request("GET", "/svc/uflow/mfa", { token: used.body.access_token })).body.totp.recovery_codes_left).toBe(9);
  });

  it("wrong codes are throttled like passwords (one allowance per account and address)", async () => {
    // A right code clears this address's count (as a right password does).
    clock.advance(30_000);
    expect((await h.request("POST", "/svc/uflow/auth/mfa", { json: { mfa_ticket: (await login(ADMIN_EMAIL, ADMIN_PASSWORD)).body.mfa_ticket, code: await codeNow(secret) } })).status).toBe(200);
    const t = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    for (let i = 0; i < 5; i++) expect((await h.request("POST", "/svc/uflow/auth/mfa", { json: { mfa_ticket: t.body.mfa_ticket, code: "111111" } })).status).toBe(401);
    const throttled = await h.request("POST", "/svc/uflow/auth/mfa", { json: { mfa_ticket: t.body.mfa_ticket, code: await codeNow(secret) } });
    expect(throttled.status).toBe(429);
    // Every attempt counts, the refused one too: the wait after this 6th attempt is 60 s
    // (docs/decisions/0030-attempts-counted-before-checked.md).
    expect(throttled.headers.get("retry-after")).toBe("60");
    // The same allowance covers the password door of this workspace's account (a 7th attempt: 120 s).
    const door = await h.request("POST", "/svc/uflow/auth/login", { json: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD, workspace_id: h.workspaceId } });
    expect([door.status, door.headers.get("retry-after")]).toEqual([429, "120"]);
    clock.advance(121_000);
    expect((await h.request("POST", "/svc/uflow/auth/mfa", { json: { mfa_ticket: (await login(ADMIN_EMAIL, ADMIN_PASSWORD)).body.mfa_ticket, code: await codeNow(secret) } })).status).toBe(200);
  });

  it("disabling needs a current code (or a recovery code); then the password alone signs in again", async () => {
    clock.advance(30_000);
    const t = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    const token = (await h.request("POST", "/svc/uflow/auth/mfa", { json: { mfa_ticket: t.body.mfa_ticket, code: await codeNow(secret) } })).body.access_token;
    expect((await h.request("POST", "/svc/uflow/mfa/totp/disable", { token, json: { code: "123456" } })).status).toBe(400);
    expect((await h.request("POST", "/svc/uflow/mfa/totp/disable", { token, json: { code: recovery[1]! } })).status).toBe(204);
    expect(await h.db.recoveryCode.count({ where: { userId: h.ownerId } })).toBe(0);
    const plain = await login(ADMIN_EMAIL, ADMIN_PASSWORD);
    expect(plain.status).toBe(200);
    expect(claimsOf(plain.body.access_token).amr).toEqual(["pwd"]);
  });
});

describe("the workspace's MFA rule for owners and admins", () => {
  it("only an owner sets it; an admin without a factor gets an enrol-only token; after enrolling, the code is required", async () => {
    const ws = await h.createWorkspace("rule-owner@example.test");
    const adminUser = await h.request("POST", `/uflow/v2/tenants/${ws.workspaceId}/users`, { token: ws.token, json: { email: "rule-admin@example.test", username: "ruleadmin", password: "rule-admin-pass" } });
    await h.request("PATCH", `/uflow/v2/tenants/${ws.workspaceId}/memberships/${adminUser.body.id}`, { token: ws.token, json: { membership_type: "admin" } });
    const adminToken = (await login("rule-admin@example.test", "rule-admin-pass")).body.access_token;
    expect((await h.request("PUT", `/uflow/v2/tenants/${ws.workspaceId}/mfa-policy`, { token: adminToken, json: { require_mfa_for_admins: true } })).status).toBe(403);
    expect((await h.request("PUT", `/uflow/v2/tenants/${ws.workspaceId}/mfa-policy`, { token: ws.token, json: { require_mfa_for_admins: true } })).body).toEqual({ require_mfa_for_admins: true });
    // Another workspace's owner cannot read or set it.
    expect((await h.request("GET", `/uflow/v2/tenants/${ws.workspaceId}/mfa-policy`, { token: h.adminToken })).status).toBe(403);

    const enrolOnly = await login("rule-admin@example.test", "rule-admin-pass");
    expect(enrolOnly.status).toBe(200);
    expect(enrolOnly.body.mfa_enrollment_required).toBe(true);
    const denied = await h.request("GET", "/svc/resource-servers", { token: enrolOnly.body.access_token });
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatch(/requires a second factor for administrators/);
    // The owner is never locked out either: the same enrol-only token, with which they enrol.
    const owner = await login("rule-owner@example.test", ADMIN_PASSWORD);
    expect(owner.body.mfa_enrollment_required).toBe(true);
    const { secret } = await enrol(owner.body.access_token);
    const next = await login("rule-owner@example.test", ADMIN_PASSWORD);
    expect(next.body.error).toBe("mfa_required");
    clock.advance(30_000);
    const full = await h.request("POST", "/svc/uflow/auth/mfa", { json: { mfa_ticket: next.body.mfa_ticket, code: await codeNow(secret) } });
    expect((await h.request("GET", "/svc/resource-servers", { token: full.body.access_token })).status).toBe(200);
    // A member (no admin role) is not bound by the rule.
    const member = await h.request("POST", `/uflow/v2/tenants/${ws.workspaceId}/users`, { token: full.body.access_token, json: { email: "rule-member@example.test", username: "rulemember", password: "rule-member-pass" } });
    expect(member.status).toBe(201);
    expect((await login("rule-member@example.test", "rule-member-pass")).body.mfa_enrollment_required).toBeUndefined();
  });

  it("the CLI's reset-mfa removes a lost factor: the owner signs in by password and is asked to enrol again", async () => {
    const services = h.services;
    const found = await services.tenancy.findUser("rule-owner@example.test");
    await services.signin.totp.reset(found.workspace_id, found.user_id);
    await services.signin.passkeys.reset(found.workspace_id, found.user_id);
    const back = await login("rule-owner@example.test", ADMIN_PASSWORD);
    expect(back.status).toBe(200);
    expect(back.body.mfa_enrollment_required).toBe(true);
  });
});

describe("end-user sign-in with a one-time code", () => {
  it("asks for the code after the password; the ID token's amr says pwd + otp; a replayed code is refused", async () => {
    const person = { email: "otp-user@example.test", password: "otp-user-pass" };
    const app = await setUpSignIn(h.url, await h.login(ADMIN_EMAIL, ADMIN_PASSWORD), { name: "OTP app", scopes: ["o:read"], users: [person], redirectUri: "http://127.0.0.1:7/cb" });
    // The person enrols from their own session (the cookie of a first, password-only sign-in).
    const br = browser(h.url, h.url, { cookies: true });
    const url = () => {
      const verifier = randomBytes(32).toString("base64url");
      const u = new URL(`${h.url}/oauth/authorize`);
      u.search = new URLSearchParams({ response_type: "code", client_id: app.clientId, redirect_uri: "http://127.0.0.1:7/cb", code_challenge: createHash("sha256").update(verifier).digest("base64url"), code_challenge_method: "S256", scope: "openid o:read", resource: app.resource, nonce: "n1" }).toString();
      return { u, verifier };
    };
    let p = await br.submit(await br.open(url().u), person);
    p = await br.submit(p, { decision: "allow" });
    expect(p.status).toBe(302);
    const cookie = `toolgate_session=${br.jar.get("toolgate_session")}`;
    const e = await h.request("POST", "/svc/uflow/mfa/totp/enroll", { headers: { cookie } });
    expect(e.status).toBe(200);
    expect((await h.request("POST", "/svc/uflow/mfa/totp/confirm", { headers: { cookie, origin: "https://evil.example" }, json: { code: await codeNow(e.body.secret) } })).status).toBe(403);
    expect((await h.request("POST", "/svc/uflow/mfa/totp/confirm", { headers: { cookie }, json: { code: await codeNow(e.body.secret) } })).status).toBe(200);

    // The password-only session no longer satisfies the account: prompt=none is interaction_required.
    const silent = new URL(url().u);
    silent.searchParams.set("prompt", "none");
    expect((await br.open(silent)).location!.searchParams.get("error")).toBe("interaction_required");

    // A fresh browser: password, then the code step.
    clock.advance(30_000);
    const fresh = browser(h.url, h.url, { cookies: true });
    const { u, verifier } = url();
    const step = await fresh.submit(await fresh.open(u), person);
    expect(step.status).toBe(200);
    expect(step.html).toContain("Code from your authenticator app, or a recovery code");
    const code = await codeNow(e.body.secret);
    const done = await fresh.submit(step, { code });
    expect(done.status).toBe(302);
    const tokens = await tokenRequest(h.url, app, { grant_type: "authorization_code", code: done.location!.searchParams.get("code")!, code_verifier: verifier, redirect_uri: "http://127.0.0.1:7/cb" });
    expect(claimsOf(tokens.body.id_token)).toMatchObject({ amr: ["mfa", "otp", "pwd"], acr: "urn:toolgate:acr:mfa", nonce: "n1" });
    // The same code in another browser, same step: refused, and the page asks again.
    const other = browser(h.url, h.url, { cookies: true });
    const again = await other.submit(await other.open(url().u), person);
    const refused = await other.submit(again, { code });
    expect(refused.status).toBe(401);
    expect(refused.html).toContain("That code is not valid (or was already used).");
  });

  it("another workspace's person cannot see or delete someone's passkeys or consents", async () => {
    const other = await h.createWorkspace("iso-owner@example.test");
    expect((await h.request("DELETE", "/svc/webauthn/credentials/some-credential", { token: other.token })).status).toBe(404);
    const consents = await h.db.rememberedConsent.findFirst();
    expect((await h.request("DELETE", `/svc/uflow/consents/${consents!.id}`, { token: other.token })).status).toBe(404);
    expect((await h.request("GET", "/svc/uflow/consents", { token: other.token })).body.items).toEqual([]);
  });
});
