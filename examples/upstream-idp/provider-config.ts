// node-oidc-provider's configuration as an organization's identity provider in front of Toolgate:
// one confidential client (client_secret_basic, or private_key_jwt against Toolgate's JWKS; PKCE required, ES256 ID tokens), the scopes' claims
// in the ID token itself (Toolgate reads no userinfo), its own sign-in page at /interaction/:uid,
// and consent granted up front. Shared by the demo (idp.ts) and the tests' upstream provider
// (test/helpers/upstream-idp.ts), so what the docs show is what the tests exercise.
import { randomBytes } from "node:crypto";
import type { JWK } from "jose";

export interface UpstreamProviderOptions {
  /** The provider's private signing key (ES256) with its kid. */
  jwk: JWK;
  clientId: string;
  clientSecret: string;
  /**
   * How the client authenticates at the token endpoint: client_secret_basic (default), or
   * private_key_jwt with a client assertion signed by a key of `clientJwksUri` (Toolgate's JWKS).
   */
  tokenEndpointAuthMethod?: "client_secret_basic" | "private_key_jwt";
  clientJwksUri?: string;
  /** Toolgate's <TOOLGATE_PUBLIC_URL>/svc/hmgr/callback. */
  redirectUri: string;
  /** The claims of the person with this `sub`, or undefined for no such person. */
  claimsOf: (sub: string) => Record<string, unknown> | undefined;
}

export function upstreamProviderConfig(o: UpstreamProviderOptions) {
  return {
    jwks: { keys: [o.jwk] },
    clients: [
      {
        client_id: o.clientId,
        ...(o.tokenEndpointAuthMethod === "private_key_jwt"
          ? { token_endpoint_auth_method: "private_key_jwt", jwks_uri: o.clientJwksUri }
          : { client_secret: o.clientSecret, token_endpoint_auth_method: "client_secret_basic" }),
        redirect_uris: [o.redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        id_token_signed_response_alg: "ES256",
      },
    ],
    scopes: ["openid", "email", "profile", "groups"],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"], groups: ["groups"] },
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    cookies: { keys: [randomBytes(16).toString("hex")] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx: unknown, sub: string) => {
      const claims = o.claimsOf(sub);
      return claims ? { accountId: sub, claims: () => ({ sub, ...claims }) } : undefined;
    },
    // node-oidc-provider ships no types.
    loadExistingGrant: async (ctx: any) => {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope("openid email profile groups");
      await grant.save();
      return grant;
    },
  };
}
