// Fixtures for the OAuth tests: a resource server and a pre-registered client created through the
// admin API (the same path an operator takes), plus the oauth4webapi options every call needs
// (the test server speaks plain http on 127.0.0.1).
import * as oauth from "oauth4webapi";
import type { Harness } from "./harness";

export const insecure = { [oauth.allowInsecureRequests]: true } as const;

let serial = 0;

export interface ServerFixture {
  id: string;
  introspection_secret: string;
  resource_url: string;
}

export async function createServer(h: Harness, over: Record<string, unknown> = {}, token = h.adminToken): Promise<ServerFixture> {
  serial += 1;
  const r = await h.request("POST", "/svc/resource-servers", {
    token,
    json: {
      name: `MCP ${serial}`,
      public_base_url: `https://mcp${serial}-${Date.now()}.example.test`,
      protected_base_path: "/mcp",
      scopes_supported: ["files:read", "files:write", "admin"],
      ...over,
    },
  });
  if (r.status !== 201) throw new Error(`server creation failed: ${r.status} ${r.text}`);
  return r.body;
}

export interface ClientFixture {
  client_id: string;
  client_secret: string;
  [k: string]: unknown;
}

export async function createClient(h: Harness, serverId: string, over: Record<string, unknown> = {}, token = h.adminToken): Promise<ClientFixture> {
  const r = await h.request("POST", `/svc/resource-servers/${serverId}/clients`, {
    token,
    json: { client_name: "Nightly sync", redirect_uris: [], kind: "m2m", allowed_scopes: ["files:read", "files:write"], ...over },
  });
  if (r.status !== 201) throw new Error(`client creation failed: ${r.status} ${r.text}`);
  return r.body;
}

/** RFC 8414 discovery through oauth4webapi's strict processing (issuer must match exactly). */
export async function discover(h: Harness, algorithm: "oauth2" | "oidc" = "oauth2"): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(h.config.publicUrl);
  return oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm, ...insecure }));
}

/** Client credentials through oauth4webapi; resolves to the processed token response. */
export async function clientCredentials(
  as: oauth.AuthorizationServer,
  client: ClientFixture,
  params: Record<string, string> = {},
  method: "post" | "basic" = "basic",
): Promise<oauth.TokenEndpointResponse> {
  const auth = method === "post" ? oauth.ClientSecretPost(client.client_secret) : oauth.ClientSecretBasic(client.client_secret);
  const c: oauth.Client = { client_id: client.client_id };
  return oauth.processClientCredentialsResponse(as, c, await oauth.clientCredentialsGrantRequest(as, c, auth, params, insecure));
}

/** Introspection as a resource server (Basic rs_id:introspection_secret) through oauth4webapi. */
export async function introspect(as: oauth.AuthorizationServer, server: ServerFixture, token: string): Promise<oauth.IntrospectionResponse> {
  const c: oauth.Client = { client_id: server.id };
  return oauth.processIntrospectionResponse(as, c, await oauth.introspectionRequest(as, c, oauth.ClientSecretBasic(server.introspection_secret), token, insecure));
}

/** RFC 7009 revocation by a client through oauth4webapi. */
export async function revoke(as: oauth.AuthorizationServer, client: ClientFixture, token: string, method: "post" | "basic" = "basic"): Promise<void> {
  const auth = method === "post" ? oauth.ClientSecretPost(client.client_secret) : oauth.ClientSecretBasic(client.client_secret);
  const c: oauth.Client = { client_id: client.client_id };
  await oauth.processRevocationResponse(await oauth.revocationRequest(as, c, auth, token, insecure));
}

/** The JWT payload without verification (for asserting claims the server put there). */
export function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString("utf8"));
}

export function headerOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split(".")[0]!, "base64url").toString("utf8"));
}
