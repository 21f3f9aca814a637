// The peer of the `vs node-oidc-provider` table (bench/peer.ts): node-oidc-provider 9 (Koa, its
// in-memory adapter) in its own process, configured for what Toolgate's hot paths do:
// - client credentials (features.clientCredentials) with ES256 JWT access tokens: resource
//   indicators (RFC 8707, features.resourceIndicators) name a resource server whose
//   accessTokenFormat is "jwt", and it is the default resource, so the token request's body is
//   byte-for-byte Toolgate's (grant_type=client_credentials&scope=files%3Aread);
// - introspection (RFC 7662, features.introspection) of opaque tokens: a second resource server
//   with accessTokenFormat "opaque", introspected by a confidential client standing for the
//   resource server (Basic auth, as Toolgate's resource servers do).
// Both clients authenticate with client_secret_basic. No request logging: the provider has none
// built in, so the peer is measured at its leanest. Configured by the bench runner through
// PEER_PORT, PEER_CLIENT_SECRET and PEER_RS_SECRET; prints "listening" when ready.
import { generateKeyPair, exportJWK } from "jose";
import Provider from "oidc-provider";
import { PEER } from "../peer";

async function main(): Promise<void> {
  const port = Number(process.env.PEER_PORT);
  const clientSecret = process.env.PEER_CLIENT_SECRET;
  const rsSecret = process.env.PEER_RS_SECRET;
  if (!port || !clientSecret || !rsSecret) throw new Error("PEER_PORT, PEER_CLIENT_SECRET and PEER_RS_SECRET are required");
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), alg: "ES256", use: "sig", kid: "bench-es256" };
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    clients: [
      {
        client_id: PEER.clientId,
        client_secret: clientSecret,
        grant_types: ["client_credentials"],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: "client_secret_basic",
        id_token_signed_response_alg: "ES256",
        scope: PEER.scope,
      },
      {
        client_id: PEER.rsClientId,
        client_secret: rsSecret,
        grant_types: [],
        response_types: [],
        redirect_uris: [],
        token_endpoint_auth_method: "client_secret_basic",
        id_token_signed_response_alg: "ES256",
      },
    ],
    scopes: ["files:read", "files:write"],
    ttl: { ClientCredentials: 3600 },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      // Any authenticated confidential client may introspect (the default policy, made explicit).
      introspection: { enabled: true, allowedPolicy: () => true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => PEER.jwtResource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          scope: PEER.scope,
          audience: resource,
          accessTokenTTL: 3600,
          ...(resource === PEER.jwtResource ? { accessTokenFormat: "jwt", jwt: { sign: { alg: "ES256" } } } : { accessTokenFormat: "opaque" }),
        }),
      },
    },
  });
  provider.listen(port, "127.0.0.1");
  console.log(`listening on ${issuer}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
