// The upstream provider's side of a sign-in: its key sets (JWKS, fetched through the SSRF guard),
// the code exchange at its token endpoint, and the ID token check (OIDC Core §3.1.3.7) with jose:
// signature by a key of the provider's JWKS (an unknown `kid` refetches the set once, at most once
// a minute per set, so a rotation is picked up and random kids cannot make us hammer the provider),
// `iss` equal to the configured issuer, `aud` containing our client_id, `azp` equal to it when
// present (required with several audiences), `exp` with a small skew, `iat` not in the future
// beyond that skew, `nonce` equal to the one this browser's flow sent. Each refusal names its
// stage for the log and the page; no upstream body is ever shown.
import { createLocalJWKSet, errors, jwtVerify, type JSONWebKeySet, type JWTPayload, type JWTVerifyGetKey } from "jose";
import type { Clock } from "../../shared/clock";
import { fetchJsonDocument, type OutboundFetchOptions } from "../../shared/outbound/fetch-json";
import { postFormForJson } from "../../shared/outbound/post-form";
import type { Provider } from "./provider-service";

export const CLOCK_SKEW_S = 60;
export const JWKS_MAX_BYTES = 64 * 1024;
const JWKS_REUSE = { defaultSeconds: 300, maxSeconds: 86_400 } as const;
const KID_REFETCH_MS = 60_000;
const MAX_SETS = 500;
const ASYMMETRIC = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];

/** A sign-in the upstream side refused; `stage` names the check (log, audit detail, page). */
export class UpstreamRefusal extends Error {
  constructor(
    readonly stage: string,
    message: string,
  ) {
    super(message);
  }
}

interface KeySet {
  keys: JWTVerifyGetKey;
  freshUntil: number;
  /** When a kid the set lacked last caused a refetch. */
  kidRefetchAt: number;
}

/** Per-provider JWKS cache (bounded; per entry). */
export class UpstreamKeySets {
  private readonly sets = new Map<string, KeySet>();
  constructor(
    private readonly clock: Clock,
    private readonly outbound: OutboundFetchOptions,
  ) {}

  resolver(uri: string): JWTVerifyGetKey {
    return async (header, token) => {
      const now = this.clock.now().getTime();
      const cached = this.sets.get(uri);
      const set = cached && cached.freshUntil > now ? cached : await this.fetch(uri, cached?.kidRefetchAt ?? 0);
      try {
        return await set.keys(header, token);
      } catch (e) {
        if (!(e instanceof errors.JWKSNoMatchingKey) || now - set.kidRefetchAt < KID_REFETCH_MS) throw e;
        return (await this.fetch(uri, now)).keys(header, token);
      }
    };
  }

  private async fetch(uri: string, kidRefetchAt: number): Promise<KeySet> {
    const fetched = await fetchJsonDocument(new URL(uri), this.outbound, { maxBytes: JWKS_MAX_BYTES, reuse: JWKS_REUSE, what: "the provider's jwks_uri document" });
    if (!fetched.ok) throw new UpstreamRefusal("jwks_unavailable", fetched.reason);
    const doc = fetched.json as { keys?: unknown };
    if (typeof doc !== "object" || doc === null || !Array.isArray(doc.keys)) throw new UpstreamRefusal("jwks_unavailable", "the provider's jwks_uri document has no keys array");
    const set: KeySet = { keys: createLocalJWKSet(doc as JSONWebKeySet), freshUntil: this.clock.now().getTime() + fetched.maxAgeSeconds * 1000, kidRefetchAt };
    this.sets.delete(uri);
    if (this.sets.size >= MAX_SETS) this.sets.delete(this.sets.keys().next().value!);
    this.sets.set(uri, set);
    return set;
  }
}

/** RFC 7523 §2.2's client_assertion_type. */
export const JWT_BEARER_ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/**
 * Authorization code -> the provider's ID token: client_secret_basic, private_key_jwt (`auth` is a
 * client assertion), or a public client with PKCE only.
 */
export async function exchangeCode(
  provider: Provider,
  auth: string | { assertion: string } | null,
  input: { code: string; redirectUri: string; verifier: string },
  outbound: OutboundFetchOptions,
): Promise<string> {
  const form = new URLSearchParams({ grant_type: "authorization_code", code: input.code, redirect_uri: input.redirectUri, code_verifier: input.verifier });
  const headers: Record<string, string> = {};
  // RFC 6749 §2.3.1: both parts form-urlencoded before Basic.
  if (typeof auth === "string") headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(provider.clientId)}:${encodeURIComponent(auth)}`).toString("base64")}`;
  else {
    form.set("client_id", provider.clientId);
    if (auth !== null) {
      form.set("client_assertion_type", JWT_BEARER_ASSERTION);
      form.set("client_assertion", auth.assertion);
    }
  }
  const answer = await postFormForJson(new URL(provider.tokenEndpoint), form, headers, outbound, { maxBytes: 64 * 1024, what: "the provider's token endpoint" });
  if (!answer.ok) throw new UpstreamRefusal("token_exchange", answer.reason);
  const body = answer.json as Record<string, unknown>;
  if (answer.status !== 200) {
    const error = typeof body?.error === "string" ? body.error.slice(0, 64) : `HTTP ${answer.status}`;
    throw new UpstreamRefusal("token_exchange", `the provider refused the code (${error})`);
  }
  if (typeof body?.id_token !== "string") throw new UpstreamRefusal("token_exchange", "the provider's token answer has no id_token");
  return body.id_token;
}

export async function verifyIdToken(provider: Provider, idToken: string, nonce: string, keys: UpstreamKeySets, clock: Clock): Promise<JWTPayload> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, keys.resolver(provider.jwksUri), {
      issuer: provider.issuer,
      audience: provider.clientId,
      algorithms: ASYMMETRIC,
      clockTolerance: CLOCK_SKEW_S,
      currentDate: clock.now(),
      requiredClaims: ["sub", "iat", "exp"],
    }));
  } catch (e) {
    if (e instanceof UpstreamRefusal) throw e;
    if (e instanceof errors.JWTClaimValidationFailed) throw new UpstreamRefusal(`id_token_${e.claim}`, `the ID token's ${e.claim} claim is not valid (${e.reason})`);
    if (e instanceof errors.JWTExpired) throw new UpstreamRefusal("id_token_exp", "the ID token has expired");
    if (e instanceof errors.JWKSNoMatchingKey) throw new UpstreamRefusal("id_token_signature", "the ID token is signed by a key the provider does not publish");
    if (e instanceof errors.JWSSignatureVerificationFailed) throw new UpstreamRefusal("id_token_signature", "the ID token's signature is not valid");
    throw new UpstreamRefusal("id_token_malformed", "the ID token cannot be read");
  }
  if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp === undefined) throw new UpstreamRefusal("id_token_azp", "the ID token has several audiences and no azp");
  if (payload.azp !== undefined && payload.azp !== provider.clientId) throw new UpstreamRefusal("id_token_azp", "the ID token's azp is not this client");
  if (typeof payload.iat !== "number" || payload.iat > clock.now().getTime() / 1000 + CLOCK_SKEW_S) throw new UpstreamRefusal("id_token_iat", "the ID token was issued in the future");
  if (payload.nonce !== nonce) throw new UpstreamRefusal("id_token_nonce", "the ID token's nonce is not the one this sign-in sent");
  if (typeof payload.sub !== "string" || payload.sub.length === 0 || payload.sub.length > 255) throw new UpstreamRefusal("id_token_sub", "the ID token has no usable sub");
  return payload;
}
