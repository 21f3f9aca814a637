// Signing keys as relying parties see them: the published key set at both locations, and the
// semantics of `toolgate keys rotate` (services.keys.rotate(lead)) on an exact clock — a new key is
// published before it signs anything, and a superseded key keeps verifying until every token it
// can have signed has expired, then leaves the key set.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as oauth from "oauth4webapi";
import { SignJWT, createLocalJWKSet, jwtVerify } from "jose";
import { ManualClock } from "../src/shared/clock";
import { MAX_TOKEN_LIFETIME_S } from "../src/modules/tokens";
import { startToolgate, type Harness } from "./helpers/harness";
import { claimsOf, clientCredentials, createClient, createServer, discover, headerOf, introspect, type ClientFixture, type ServerFixture } from "./helpers/oauth-fixtures";

const clock = new ManualClock(new Date("2026-03-01T00:00:00.000Z"));
let h: Harness;
let as: oauth.AuthorizationServer;
let server: ServerFixture;
let client: ClientFixture;

beforeAll(async () => {
  h = await startToolgate({ clock });
  as = await discover(h);
  server = await createServer(h);
  client = await createClient(h, server.id, { token_lifetime: 86_400 });
});
afterAll(async () => h?.close());

const jwks = async (path = "/oauth/jwks") => {
  const r = await h.request("GET", path);
  expect(r.status).toBe(200);
  return r.body as { keys: Record<string, unknown>[] };
};
/** The ES256 keys' ids (access tokens; the RS256 key of ID tokens has its own schedule). */
const kids = async () => (await jwks()).keys.filter((k) => k.alg === "ES256").map((k) => k.kid);

describe("published keys", () => {
  it("serves the same public key set at /oauth/jwks and /.well-known/jwks.json, without private members", async () => {
    const a = await jwks("/oauth/jwks");
    const b = await jwks("/.well-known/jwks.json");
    expect(b).toEqual(a);
    // One ES256 key (access, admin and ID tokens) and one RS256 key (ID tokens of clients that ask for it).
    expect(a.keys.map((k) => k.alg).sort()).toEqual(["ES256", "RS256"]);
    const rsa = a.keys.find((k) => k.alg === "RS256")!;
    expect(Object.keys(rsa).sort()).toEqual(["alg", "e", "kid", "kty", "n", "use"]);
    expect(rsa).toMatchObject({ kty: "RSA", use: "sig" });
    expect(rsa.kid).toBe(h.services.keys.signingKey("RS256").kid);
    const key = a.keys.find((k) => k.alg === "ES256");
    expect(Object.keys(key!).sort()).toEqual(["alg", "crv", "kid", "kty", "use", "x", "y"]);
    expect(key).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
    expect(key!.kid).toBe(h.services.keys.signingKey().kid);
    const r = await fetch(`${h.url}/.well-known/jwks.json`);
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    expect(r.headers.get("cache-control")).toBe("public, max-age=60");
  });

  it("signs access tokens with the published key (kid in the header)", async () => {
    const t = await clientCredentials(as, client);
    expect(headerOf(t.access_token).kid).toBe((await kids())[0]);
    await jwtVerify(t.access_token, createLocalJWKSet(await jwks()), { currentDate: clock.now() });
  });
});

describe("rotation (toolgate keys rotate)", () => {
  it("publishes the new key before it signs, and retires the old one only after its tokens expired", async () => {
    const oldKid = h.services.keys.signingKey().kid;
    const oldKey = h.services.keys.signingKey().key;
    const before = await clientCredentials(as, client);
    expect(headerOf(before.access_token).kid).toBe(oldKid);

    const lead = 300;
    const rotated = await h.services.keys.rotate(lead);
    expect(rotated.activates_at).toBe(new Date(clock.now().getTime() + lead * 1000).toISOString());
    const newKid = rotated.kid;
    expect(newKid).not.toBe(oldKid);

    // Published at once, not signing yet.
    expect(await kids()).toEqual([oldKid, newKid]);
    const during = await clientCredentials(as, client);
    expect(headerOf(during.access_token).kid).toBe(oldKid);

    // After the lead time the new key signs; tokens of the old key still introspect active.
    clock.advance(lead * 1000);
    const after = await clientCredentials(as, client);
    expect(headerOf(after.access_token).kid).toBe(newKid);
    for (const t of [before, during, after]) expect((await introspect(as, server, t.access_token)).active).toBe(true);
    await jwtVerify(before.access_token, createLocalJWKSet(await jwks()), { currentDate: clock.now() });

    // A long-lived token of the old key (as if it had claimed a longer life than we ever issue),
    // introspected while the old key is published: cached as verified...
    const iat = Math.floor(clock.now().getTime() / 1000);
    const c = claimsOf(before.access_token);
    const forged = await new SignJWT({ ...c, jti: "long-lived", iat, exp: iat + 10 * 86_400 })
      .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: oldKid })
      .sign(oldKey);
    expect((await introspect(as, server, forged)).active).toBe(true);

    // Just before the old key's last token expires it is still published and verifying.
    const lastOldExp = claimsOf(during.access_token).exp as number;
    clock.set(new Date((lastOldExp - 1) * 1000));
    expect(await kids()).toEqual([oldKid, newKid]);
    expect((await introspect(as, server, during.access_token)).active).toBe(true);
    clock.set(new Date(lastOldExp * 1000));
    expect(await introspect(as, server, during.access_token)).toEqual({ active: false });

    // The old key leaves the set when its publication window ends (activation of the successor +
    // the longest token lifetime + skew); nothing it signed verifies any more — not even the
    // cached long-lived token.
    const windowEnd = new Date(rotated.activates_at).getTime() + MAX_TOKEN_LIFETIME_S * 1000;
    clock.set(new Date(windowEnd - 1000));
    expect(await kids()).toEqual([oldKid, newKid]);
    clock.set(new Date(windowEnd));
    expect(await kids()).toEqual([newKid]);
    expect(await jwks("/.well-known/jwks.json")).toEqual(await jwks());
    expect(await introspect(as, server, forged)).toEqual({ active: false });

    // The new key keeps working.
    const fresh = await clientCredentials(as, client);
    expect(headerOf(fresh.access_token).kid).toBe(newKid);
    expect((await introspect(as, server, fresh.access_token)).active).toBe(true);
  });
});
