// The peer of `npm run bench`: node-oidc-provider (bench/peer/oidc-provider-server.ts) in its own
// process, and the requests that match Toolgate's scenarios. A scenario names its peer request
// (Scenario.peer); the runner measures both in the same rounds and prints their ratio.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { AutocannonRequest } from "./scenario";

/** The peer's fixed clients and resources (its configuration: bench/peer/oidc-provider-server.ts). */
export const PEER = {
  clientId: "bench-workload",
  rsClientId: "bench-resource-server",
  jwtResource: "https://jwt.bench.example.test/mcp",
  opaqueResource: "https://opaque.bench.example.test/mcp",
  scope: "files:read files:write",
};

export interface PeerContext {
  url: string;
  clientSecret: string;
  rsSecret: string;
}

export function peerSecrets(): { clientSecret: string; rsSecret: string } {
  return { clientSecret: randomBytes(32).toString("base64url"), rsSecret: randomBytes(32).toString("base64url") };
}

export const PEER_SCRIPT = join("bench", "peer", "oidc-provider-server.ts");

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
const FORM = "application/x-www-form-urlencoded";

/** POST /token, client credentials, one scope: an ES256 JWT access token for the default resource. */
export async function peerTokenRequest(peer: PeerContext): Promise<AutocannonRequest> {
  return {
    method: "POST",
    path: "/token",
    headers: { "content-type": FORM, authorization: basic(PEER.clientId, peer.clientSecret) },
    body: "grant_type=client_credentials&scope=files%3Aread",
  };
}

/** POST /token/introspection of an opaque client-credentials token, by the resource server's client. */
export async function peerIntrospectionRequest(peer: PeerContext): Promise<AutocannonRequest> {
  const res = await fetch(`${peer.url}/token`, {
    method: "POST",
    headers: { "content-type": FORM, authorization: basic(PEER.clientId, peer.clientSecret) },
    body: new URLSearchParams({ grant_type: "client_credentials", scope: "files:read", resource: PEER.opaqueResource }).toString(),
  });
  if (!res.ok) throw new Error(`peer token request failed: ${res.status} ${await res.text()}`);
  const token = ((await res.json()) as { access_token: string }).access_token;
  return {
    method: "POST",
    path: "/token/introspection",
    headers: { "content-type": FORM, authorization: basic(PEER.rsClientId, peer.rsSecret) },
    body: new URLSearchParams({ token }).toString(),
  };
}
