// A test identity provider for enterprise-managed authorization: jose keys, its JWKS (served by the
// test's https host on loopback), ID tokens for its users, and a real RFC 8693 token-exchange
// endpoint on loopback that turns an ID token into an ID-JAG (draft-ietf-oauth-identity-assertion-authz-grant
// §4.3), as Okta or Entra would. Also mints workload JWTs (SPIFFE JWT-SVIDs) for a trust bundle.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { SignJWT, exportJWK, generateKeyPair, jwtVerify, createLocalJWKSet, type JWK } from "jose";

type Key = { kid: string; privateKey: CryptoKey; jwk: JWK };

export class TestIdp {
  readonly keys: Key[] = [];
  /** Token-exchange requests received (form fields). */
  readonly exchanges: Record<string, string>[] = [];
  private server: Server | undefined;
  tokenEndpoint = "";

  constructor(
    readonly issuer: string,
    /** The IdP's own client_id for the agent (the ID token's audience). */
    readonly idpClientId = "agent-at-idp",
  ) {}

  static async create(issuer: string, alg: "ES256" | "RS256" = "ES256"): Promise<TestIdp> {
    const idp = new TestIdp(issuer);
    await idp.addKey(alg);
    return idp;
  }

  async addKey(alg: "ES256" | "RS256" = "ES256"): Promise<Key> {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const kid = `k${this.keys.length + 1}-${randomUUID().slice(0, 8)}`;
    const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: "sig" };
    const key = { kid, privateKey: privateKey as CryptoKey, jwk };
    this.keys.push(key);
    return key;
  }

  jwks(): { keys: JWK[] } {
    return { keys: this.keys.map((k) => k.jwk) };
  }

  /** Signs `claims` (defaults filled) as an ID-JAG; `header` overrides typ/alg/kid. */
  async mint(claims: Record<string, unknown>, opts: { typ?: string; key?: Key; lifetimeS?: number; iat?: number } = {}): Promise<string> {
    const key = opts.key ?? this.keys[this.keys.length - 1]!;
    const now = opts.iat ?? Math.floor(Date.now() / 1000);
    return new SignJWT({ jti: randomUUID(), iss: this.issuer, iat: now, exp: now + (opts.lifetimeS ?? 300), ...claims })
      .setProtectedHeader({ alg: key.jwk.alg as string, kid: key.kid, typ: opts.typ ?? "oauth-id-jag+jwt" })
      .sign(key.privateKey);
  }

  async idToken(sub: string, email: string): Promise<string> {
    const key = this.keys[this.keys.length - 1]!;
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ sub, email, email_verified: true })
      .setProtectedHeader({ alg: key.jwk.alg as string, kid: key.kid, typ: "JWT" })
      .setIssuer(this.issuer)
      .setAudience(this.idpClientId)
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(key.privateKey);
  }

  /** Serves POST /oauth2/token (RFC 8693 token exchange: ID token -> ID-JAG) on loopback. */
  async listen(clientIdAtResourceAs: string): Promise<string> {
    this.server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", async () => {
        const form = Object.fromEntries(new URLSearchParams(body));
        this.exchanges.push(form);
        const fail = (error: string) => res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error }));
        if (form.grant_type !== "urn:ietf:params:oauth:grant-type:token-exchange" || form.requested_token_type !== "urn:ietf:params:oauth:token-type:id-jag") return fail("invalid_request");
        if (form.subject_token_type !== "urn:ietf:params:oauth:token-type:id_token" || !form.audience || !form.subject_token) return fail("invalid_request");
        let sub: string;
        let email: string;
        try {
          const { payload } = await jwtVerify(form.subject_token, createLocalJWKSet(this.jwks()), { issuer: this.issuer, audience: this.idpClientId });
          sub = payload.sub!;
          email = payload.email as string;
        } catch {
          return fail("invalid_grant");
        }
        const jag = await this.mint({ sub, email, aud: form.audience, client_id: clientIdAtResourceAs, ...(form.resource ? { resource: form.resource } : {}), ...(form.scope ? { scope: form.scope } : {}) });
        res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" }).end(
          JSON.stringify({ issued_token_type: "urn:ietf:params:oauth:token-type:id-jag", access_token: jag, token_type: "N_A", ...(form.scope ? { scope: form.scope } : {}), expires_in: 300 }),
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.tokenEndpoint = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/oauth2/token`;
    return this.tokenEndpoint;
  }

  async close(): Promise<void> {
    if (this.server) await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}
