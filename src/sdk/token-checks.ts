// Who is calling, decided in two steps:
//  1. Locally (no network on the hot path): the JWT's signature against the issuer's JWKS (jose
//     caches the key set and refetches it on an unknown `kid`, at most once per cooldown), `typ`
//     at+jwt, `iss`, `aud` = this server's resource (RFC 8707 §2, RFC 9068 §4; MCP: a server MUST
//     reject tokens not issued for it), `exp`.
//  2. Introspection (RFC 7662) for activity and the scopes the subject may hold *now* (Toolgate
//     resolves them against current role bindings), cached per token for a short configurable time
//     and never beyond the token's `exp`. That cache time is the bound within which a revocation or
//     a removed binding takes effect here.
import { createRemoteJWKSet, jwtVerify, errors as joseErrors } from "jose";
import type { ToolgateApi } from "./toolgate-api";

export interface Caller {
  token: string;
  subject: string;
  clientId: string;
  scopes: string[];
  /** Unix seconds. */
  expiresAt: number;
}

export type TokenVerdict = { ok: true; caller: Caller } | { ok: false; description: string };

interface CacheEntry {
  verdict: TokenVerdict;
  /** Epoch ms after which the entry must not be used. */
  until: number;
  /** Epoch ms after which a hit starts a background reload (refresh-ahead: a busy token never stalls its callers). */
  refreshAt: number;
}

export interface TokenCheckOptions {
  issuer: string;
  resource: string;
  introspectionCacheMs: number;
  maxCachedTokens: number;
  clockToleranceS: number;
  now: () => number;
  /** A background reload failed (e.g. Toolgate refused our credentials): the guard logs it and answers 503. */
  onBackgroundError: (e: unknown) => void;
}

export class TokenChecks {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>;
  private readonly cache = new Map<string, CacheEntry>();
  private readonly inflight = new Map<string, Promise<TokenVerdict>>();

  constructor(
    private readonly api: ToolgateApi,
    private readonly opts: TokenCheckOptions,
  ) {
    this.jwks = createRemoteJWKSet(api.jwksUrl, { cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 });
  }

  /** Synchronous when the token's verdict is cached (the warm path does no await at all). */
  check(token: string): TokenVerdict | Promise<TokenVerdict> {
    const now = this.opts.now();
    const hit = this.cache.get(token);
    if (hit && hit.until > now) {
      // Still within the bound: answer from memory; past half of it, reload in the background.
      if (hit.refreshAt <= now && !this.inflight.has(token)) this.reload(token).catch(this.opts.onBackgroundError);
      return hit.verdict;
    }
    if (hit) this.cache.delete(token);
    return this.inflight.get(token) ?? this.reload(token);
  }

  private reload(token: string): Promise<TokenVerdict> {
    const pending = this.load(token).finally(() => this.inflight.delete(token));
    this.inflight.set(token, pending);
    return pending;
  }

  /** Forgets every cached verdict (tests, or an operator who wants revocations now). */
  clear(): void {
    this.cache.clear();
  }

  private async load(token: string): Promise<TokenVerdict> {
    let exp: number;
    try {
      const { payload } = await jwtVerify(token, this.jwks, {
        issuer: this.opts.issuer,
        audience: this.opts.resource,
        typ: "at+jwt",
        requiredClaims: ["exp", "sub"],
        clockTolerance: this.opts.clockToleranceS,
      });
      exp = payload.exp!;
    } catch (e) {
      // The issuer's key set could not be fetched: our problem, not the caller's (the guard answers 503).
      if (e instanceof joseErrors.JWKSTimeout || !(e instanceof joseErrors.JOSEError)) throw e;
      // Not cached: a forged or foreign token costs the caller a signature check, not our memory.
      return { ok: false, description: describeJoseError(e) };
    }
    // CredentialsRefused propagates: the guard answers 503, not invalid_token.
    const info = await this.api.introspect(token);
    const now = this.opts.now();
    const verdict: TokenVerdict = info.active
      ? {
          ok: true,
          caller: { token, subject: info.sub ?? "", clientId: info.client_id ?? "", scopes: (info.scope ?? "").split(" ").filter(Boolean), expiresAt: info.exp ?? exp },
        }
      : { ok: false, description: "the token is not active (revoked, expired or its subject lost access)" };
    const until = Math.min(now + this.opts.introspectionCacheMs, (info.exp ?? exp) * 1000);
    if (until > now) this.remember(token, { verdict, until, refreshAt: now + (until - now) / 2 });
    return verdict;
  }

  private remember(token: string, entry: CacheEntry): void {
    // Bounded: when full, drop the oldest insertion (Map iteration order). Expired entries go on read.
    this.cache.delete(token); // a reload moves the token to the newest position
    if (this.cache.size >= this.opts.maxCachedTokens) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(token, entry);
  }
}

function describeJoseError(e: unknown): string {
  if (e instanceof joseErrors.JWTExpired) return "the token has expired";
  if (e instanceof joseErrors.JWTClaimValidationFailed) {
    if (e.claim === "aud") return "the token was not issued for this server (aud)";
    if (e.claim === "iss") return "the token was not issued by this server's authorization server (iss)";
    if (e.claim === "typ") return "the token is not an access token (typ must be at+jwt)";
    return `the token's ${e.claim} claim is invalid`;
  }
  if (e instanceof joseErrors.JWSSignatureVerificationFailed || e instanceof joseErrors.JWKSNoMatchingKey) return "the token's signature is not valid";
  return "the token is malformed";
}
