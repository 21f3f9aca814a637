// private_key_jwt client authentication (RFC 7523 §2.2 and §3, RFC 7521 §4.2; MCP 2025-11-25
// "Client Credentials"; docs/decisions/0025-private-key-jwt.md). The client sends
//   client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer
//   client_assertion=<JWT signed with one of its keys>
// and may omit client_id: the assertion's sub names the client (and iss must equal it). Checks,
// each failure the same invalid_client as a wrong secret (the reason is logged only):
// - the client is an approved private_key_jwt client (a cimd document with jwks or jwks_uri);
// - the signature, by jose only, against the client's keys, with ES256, RS256, PS256 or EdDSA
//   (never `none`, never HMAC: a shared secret is exactly what this method avoids);
// - iss = sub = client_id; aud names us: the issuer identifier (rfc7523bis) or the token endpoint
//   URL (RFC 7523 §3 item 3), both accepted;
// - exp present, not passed, and at most ASSERTION_MAX_LIFETIME_S (+ skew) ahead, so a jti record
//   never has to be kept long; iat, when present, not in the future beyond the skew;
// - jti present and used once until exp (UsedClientAssertions, shared by every instance).
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import type { AssertionKeys, ClientRegistry, RegisteredClient } from "../../clients";
import type { Clock } from "../../../shared/clock";
import { oauthError } from "../errors";
import type { RemoteKeySets } from "./remote-key-sets";
import type { UsedClientAssertions } from "./used-client-assertions";

export const CLIENT_ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
export const ASSERTION_SIGNING_ALGS = ["ES256", "RS256", "PS256", "EdDSA"] as const;
/** The TypeScript MCP SDK signs for 300 s (its `auth/client-credentials` helper; RFC 7523 §3 leaves the lifetime to the issuer). */
export const ASSERTION_MAX_LIFETIME_S = 300;
export const ASSERTION_CLOCK_SKEW_S = 60;
const MAX_ASSERTION_CHARS = 8_192;
/** Printable, no space (the replay key is `client_id jti`), bounded. */
const JTI_RE = /^[\x21-\x7E]{1,200}$/;

const fail = (reason: string) => oauthError("invalid_client", `client assertion: ${reason}`);

export class ClientAssertionVerifier {
  /** jose key sets of inline jwks, per registry entry (a new entry after a write gets a new set). */
  private readonly localSets = new WeakMap<object, JWTVerifyGetKey>();
  private readonly audiences: string[];

  constructor(
    private readonly clients: ClientRegistry,
    private readonly remote: RemoteKeySets,
    private readonly used: UsedClientAssertions,
    private readonly clock: Clock,
    /** The issuer identifier and the token endpoint URL. */
    audiences: readonly string[],
  ) {
    this.audiences = [...audiences];
  }

  /** The client the assertion authenticates; invalid_client otherwise. `bodyClientId`, when sent, must name the same client. */
  async verify(assertion: string, bodyClientId: string | undefined): Promise<RegisteredClient> {
    if (assertion.length > MAX_ASSERTION_CHARS) throw fail("too long");
    let claims: ReturnType<typeof decodeJwt>;
    try {
      claims = decodeJwt(assertion); // unverified: only to find whose keys to verify it with
    } catch {
      throw fail("not a JWT");
    }
    const id = claims.sub;
    if (typeof id !== "string" || id === "") throw fail("no sub");
    if (claims.iss !== id) throw fail("iss differs from sub");
    if (bodyClientId !== undefined && bodyClientId !== id) throw fail("client_id differs from the assertion's sub");
    const client = await this.clients.get(id);
    if (!client) throw fail("unknown client");
    if (client.status !== "approved") throw fail(`client status ${client.status}`);
    if (client.tokenEndpointAuthMethod !== "private_key_jwt" || !client.assertionKeys) throw fail("the client does not use private_key_jwt");

    const now = this.clock.now();
    let payload: Awaited<ReturnType<typeof jwtVerify>>["payload"];
    try {
      ({ payload } = await jwtVerify(assertion, this.keysOf(client.assertionKeys), {
        algorithms: [...ASSERTION_SIGNING_ALGS],
        issuer: id,
        subject: id,
        audience: this.audiences,
        requiredClaims: ["exp", "jti"],
        currentDate: now,
      }));
    } catch (e) {
      const err = e as { code?: string; message?: string };
      throw fail(`${err.code ?? "error"}: ${err.message ?? String(e)}`);
    }
    const nowS = now.getTime() / 1000;
    if (payload.exp! > nowS + ASSERTION_MAX_LIFETIME_S + ASSERTION_CLOCK_SKEW_S) throw fail("exp too far ahead");
    if (payload.iat !== undefined && payload.iat > nowS + ASSERTION_CLOCK_SKEW_S) throw fail("iat in the future");
    if (typeof payload.jti !== "string" || !JTI_RE.test(payload.jti)) throw fail("jti not a short printable string");
    if (!(await this.used.consume(id, payload.jti, new Date(payload.exp! * 1000)))) throw fail("jti already used");
    return client;
  }

  private keysOf(keys: AssertionKeys): JWTVerifyGetKey {
    if ("jwksUri" in keys) return this.remote.resolver(keys.jwksUri);
    let set = this.localSets.get(keys.jwks);
    if (!set) {
      set = createLocalJWKSet(keys.jwks as JSONWebKeySet);
      this.localSets.set(keys.jwks, set);
    }
    return set;
  }
}
