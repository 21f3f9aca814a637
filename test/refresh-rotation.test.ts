// Crash-safe refresh rotation (docs/sign-in.md "Crash-safe rotation"), over real HTTP: a retry of
// the immediately preceding refresh token, by the same client, within the grace, gets the same
// successor (a lost answer must not kill the family); an older token, a retry after the grace, or
// one from another client does not; a refusal that may come from an instance that has not caught
// up revokes nothing; code redemption is one transaction. Every refusal has the one public body of
// invalid_grant; the logged reason tells the cases apart.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { boot } from "../src/boot";
import { createApp, type App } from "../src/app";
import { loadConfig } from "../src/config";
import { ManualClock } from "../src/shared/clock";
import { createLogger } from "../src/shared/logger";
import { sha256Base64url } from "../src/shared/crypto";
import { REFRESH_GRACE_DEFAULT_S } from "../src/modules/signin";
import { familyIdForCode } from "../src/modules/signin/authorization-codes";
import { startToolgate, type Harness } from "./helpers/harness";
import { authorizeCode, claimsOf, exchangeCode, setUpSignIn, signInWithCode, tokenRequest, type CodeFlow, type TokenAnswer } from "./helpers/signin-flow";

const INVALID_GRANT = { error: "invalid_grant", error_description: "the authorization grant is invalid, expired, revoked, or was issued to another client" };
const GRACE_MS = REFRESH_GRACE_DEFAULT_S * 1000;
const REDIRECT = "http://127.0.0.1/callback";
const USERS = [
  { email: "ada@example.test", password: "ada-password-123" },
  { email: "bo@example.test", password: "bo-password-1234" },
];

const clock = new ManualClock();
const logs: Record<string, unknown>[] = [];
let h: Harness;
let setup: Awaited<ReturnType<typeof setUpSignIn>>;
type AppClient = { clientId: string; clientSecret: string };
let app: AppClient;
let otherApp: AppClient;

beforeAll(async () => {
  h = await startToolgate({ clock, logs });
  setup = await setUpSignIn(h.url, h.adminToken, { name: "Notes", scopes: ["notes:read", "notes:write"], users: USERS, redirectUri: REDIRECT });
  app = setup;
  const other = await h.admin("POST", `/svc/resource-servers/${setup.serverId}/clients`, {
    client_name: "Another app",
    kind: "human_app",
    redirect_uris: [REDIRECT],
    allowed_scopes: ["notes:read", "notes:write"],
  });
  expect(other.status).toBe(201);
  otherApp = { clientId: other.body.client_id, clientSecret: other.body.client_secret };
});
afterAll(async () => h?.close());

const flow = (user = USERS[0]!): CodeFlow => ({
  publicUrl: h.config.publicUrl,
  serverUrl: h.url,
  ...app,
  redirectUri: REDIRECT,
  resource: setup.resource,
  scope: "notes:read notes:write",
  ...user,
});
const signIn = (user = USERS[0]!) => signInWithCode(flow(user));
const refresh = (token: string, client: AppClient = app, serverUrl = h.url) => tokenRequest(serverUrl, client, { grant_type: "refresh_token", refresh_token: token });
/** The reason the refusal was logged with (never sent). */
const reasonOf = (r: TokenAnswer) => logs.find((l) => l.requestId === r.requestId && l.msg === "request refused")?.reason;
async function introspect(token: string): Promise<Record<string, unknown>> {
  const r = await h.request("POST", "/oauth/introspect", { basic: [setup.serverId, setup.introspectionSecret], form: { token } });
  expect(r.status).toBe(200);
  return r.body;
}
const familyRows = (familyId: unknown) => h.db.refreshToken.findMany({ where: { familyId: String(familyId) }, orderBy: { createdAt: "asc" } });

/** Expects the one public invalid_grant body, logged with `reason`. */
function expectRefused(r: TokenAnswer, reason: string | RegExp) {
  expect(r.status).toBe(400);
  expect(r.body).toEqual(INVALID_GRANT);
  expect(reasonOf(r)).toMatch(reason);
}

describe("retrying the immediately preceding refresh token", () => {
  it("within the grace, from the same client: the same successor again, a valid access token, and the family lives on", async () => {
    const first = await signIn();
    const fid = claimsOf(first.access_token).fid;
    const answered = await refresh(first.refresh_token);
    expect(answered.status).toBe(200);

    clock.advance(GRACE_MS - 1); // the answer was lost; the client retries just inside the grace
    const retried = await refresh(first.refresh_token);
    expect(retried.status).toBe(200);
    expect(retried.body.refresh_token).toBe(answered.body.refresh_token);
    expect(retried.body).toMatchObject({ token_type: "Bearer", scope: "notes:read notes:write" });
    expect(claimsOf(retried.body.access_token)).toMatchObject({ fid, sub: setup.userIds[0], client_id: app.clientId });
    expect(await introspect(retried.body.access_token)).toMatchObject({ active: true, scope: "notes:read notes:write" });
    expect(await introspect(answered.body.access_token)).toMatchObject({ active: true });
    // The retry wrote nothing: one rotated token and its successor.
    const rows = await familyRows(fid);
    expect(rows.map((r) => [r.rotatedAt !== null, r.revokedAt])).toEqual([
      [true, null],
      [false, null],
    ]);

    // The chain goes on from the successor.
    const next = await refresh(retried.body.refresh_token);
    expect(next.status).toBe(200);
    expect(next.body.refresh_token).not.toBe(retried.body.refresh_token);
    expect(await introspect(next.body.access_token)).toMatchObject({ active: true });
  });

  it("at the end of the grace it is reuse: the family is revoked", async () => {
    const first = await signIn();
    const answered = await refresh(first.refresh_token);
    expect(answered.status).toBe(200);

    clock.advance(GRACE_MS);
    expectRefused(await refresh(first.refresh_token), `rotated refresh token presented again ${REFRESH_GRACE_DEFAULT_S} s after its rotation (grace ${REFRESH_GRACE_DEFAULT_S} s); family revoked`);
    expectRefused(await refresh(answered.body.refresh_token), "refresh token revoked (its family was revoked)");
    expect(await introspect(answered.body.access_token)).toEqual({ active: false });
    expect(await introspect(first.access_token)).toEqual({ active: false });
    expect((await familyRows(claimsOf(first.access_token).fid)).every((r) => r.revokedAt !== null)).toBe(true);
  });

  it("a token two generations back revokes the family even within the grace; only the immediately preceding one is a retry", async () => {
    const first = await signIn();
    const second = await refresh(first.refresh_token);
    const third = await refresh(second.body.refresh_token);
    expect(third.status).toBe(200);

    // The immediately preceding token (second's) is a retry: the current token again.
    const retried = await refresh(second.body.refresh_token);
    expect(retried.status).toBe(200);
    expect(retried.body.refresh_token).toBe(third.body.refresh_token);

    // The first token's successor has been rotated itself: reuse, though within the grace.
    expectRefused(await refresh(first.refresh_token), "refresh token two or more generations old presented within the grace; family revoked");
    expectRefused(await refresh(third.body.refresh_token), "refresh token revoked (its family was revoked)");
    expectRefused(await refresh(second.body.refresh_token), "refresh token revoked (its family was revoked)");
    expect(await introspect(third.body.access_token)).toEqual({ active: false });
    expect(await introspect(retried.body.access_token)).toEqual({ active: false });
  });

  it("from another client: invalid_grant, and nothing is rotated or revoked", async () => {
    const first = await signIn();
    const answered = await refresh(first.refresh_token);
    expect(answered.status).toBe(200);

    // RFC 6749 §6: a refresh token is bound to its client. Another client presenting it learns
    // nothing and cannot hurt the rightful client's family (RFC 9700 §4.14.2 revokes on reuse BY
    // the client the token was issued to; anyone else's presentation proves nothing about it).
    expectRefused(await refresh(first.refresh_token, otherApp), "refresh token unknown, expired, revoked, or issued to another client");
    expectRefused(await refresh(answered.body.refresh_token, otherApp), "refresh token unknown, expired, revoked, or issued to another client");

    const retried = await refresh(first.refresh_token);
    expect(retried.status).toBe(200);
    expect(retried.body.refresh_token).toBe(answered.body.refresh_token);
    expect((await refresh(answered.body.refresh_token)).status).toBe(200);
    expect(await introspect(answered.body.access_token)).toMatchObject({ active: true });
  });

  it("concurrent refreshes with one token all get its one successor", async () => {
    const first = await signIn();
    const answers = await Promise.all(Array.from({ length: 6 }, () => refresh(first.refresh_token)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(answers.map((a) => a.body.refresh_token)).size).toBe(1);
    expect(await familyRows(claimsOf(first.access_token).fid)).toHaveLength(2);
    expect((await refresh(answers[0]!.body.refresh_token)).status).toBe(200);
  });
});

/** Another instance on the same database that hears nothing from the others (never started). */
async function deafInstance(): Promise<{ app: App; url: string; close(): Promise<void> }> {
  const { db, masterKey } = await boot(h.config);
  const logger = createLogger("info", new Writable({ write: (chunk, _enc, done) => (logs.push(JSON.parse(String(chunk))), done()) }));
  const other = await createApp({ config: h.config, db, masterKey, logger, clock });
  const http: Server = createHttpServer(other.app);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    app: other,
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    async close() {
      await new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections?.();
      await other.close();
      await db.$disconnect();
    },
  };
}

describe("a refusal an instance that has not caught up may give", () => {
  it("never revokes the family: a user reactivated elsewhere refreshes again", async () => {
    const bo = USERS[1]!;
    const first = await signIn(bo);
    const suspend = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/end-users/${setup.userIds[1]}/suspend`, { reason: "review" });
    expect(suspend.status).toBe(200);
    const stale = await deafInstance();
    try {
      // The other instance learns the suspension (its first look), then misses the reactivation.
      const held = "the user may no longer hold anything in the workspace, as this instance sees it; nothing rotated or revoked";
      expectRefused(await refresh(first.refresh_token, app, stale.url), held);
      expect((await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/end-users/${setup.userIds[1]}/reactivate`)).status).toBe(200);
      expectRefused(await refresh(first.refresh_token, app, stale.url), held);
    } finally {
      await stale.close();
    }
    // Nothing was rotated or revoked: the same token refreshes where the reactivation is known.
    expect(await introspect(first.access_token)).toMatchObject({ active: true });
    const fid = claimsOf(first.access_token).fid;
    expect((await familyRows(fid)).map((r) => [r.rotatedAt, r.revokedAt])).toEqual([[null, null]]);
    expect((await refresh(first.refresh_token)).status).toBe(200);
  });
});

describe("code redemption is one transaction", () => {
  it("a failure inside the redemption leaves the code unused; a replay of a redeemed code still revokes its family", async () => {
    const f = flow();
    const { code, verifier } = await authorizeCode(f);
    // Something fails after the code was marked used (here: the first refresh token cannot be
    // stored): the transaction rolls back, so the code is not lost with its chain missing.
    const failing = h.services.signin.codes.redeem(code, app.clientId, {
      redirectUriPresented: true,
      check: () => undefined,
      startChain: async () => {
        throw new Error("the refresh token could not be stored");
      },
    });
    await expect(failing).rejects.toThrow("the refresh token could not be stored");
    expect((await h.db.authorizationCode.findUnique({ where: { codeHash: sha256Base64url(code) } }))?.usedAt).toBeNull();

    const tokens = await exchangeCode(f, code, verifier);
    expect(tokens.status).toBe(200);
    const fid = claimsOf(tokens.body.access_token).fid;
    expect(fid).toBe(familyIdForCode(sha256Base64url(code)));
    expect(await familyRows(fid)).toHaveLength(1);

    // The answer is lost and the client sends the code again: a replay, as before (OAuth 2.1 §4.1.3).
    expectRefused(await exchangeCode(f, code, verifier), "authorization code replayed; its token family was revoked");
    expect(await introspect(tokens.body.access_token)).toEqual({ active: false });
    expectRefused(await refresh(tokens.body.refresh_token), "refresh token revoked (its family was revoked)");
  });

  it("a request its checks refuse uses the code up and starts no chain", async () => {
    const f = flow();
    const { code, verifier } = await authorizeCode(f);
    expectRefused(await exchangeCode(f, code, `${verifier.slice(0, -2)}xx`), "code_verifier does not match the code_challenge (PKCE)");
    expect(await familyRows(familyIdForCode(sha256Base64url(code)))).toEqual([]);
    expectRefused(await exchangeCode(f, code, verifier), "authorization code replayed; its token family was revoked");
  });
});

describe("TOOLGATE_REFRESH_GRACE_SECONDS", () => {
  it("defaults to 15 seconds, takes 0 (off) to 60, and refuses anything else", () => {
    expect(loadConfig({}).refreshGraceSeconds).toBe(15);
    expect(loadConfig({ TOOLGATE_REFRESH_GRACE_SECONDS: "" }).refreshGraceSeconds).toBe(15);
    expect(loadConfig({ TOOLGATE_REFRESH_GRACE_SECONDS: "0" }).refreshGraceSeconds).toBe(0);
    expect(loadConfig({ TOOLGATE_REFRESH_GRACE_SECONDS: "60" }).refreshGraceSeconds).toBe(60);
    for (const bad of ["61", "-1", "2.5", "five"]) expect(() => loadConfig({ TOOLGATE_REFRESH_GRACE_SECONDS: bad })).toThrow(/TOOLGATE_REFRESH_GRACE_SECONDS/);
  });
});
