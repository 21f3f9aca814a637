// Set-up shared by the OAuth scenarios, through the public API (kept outside scenarios/, where
// every file is a scenario).
import type { AutocannonRequest, BenchContext } from "./scenario";

export async function createServer(ctx: BenchContext, label: string): Promise<{ id: string; introspection_secret: string; resource_url: string }> {
  return ctx.admin("POST", "/svc/resource-servers", {
    name: `bench ${label}`,
    public_base_url: `https://${label}-${Math.random().toString(36).slice(2, 8)}.bench.example.test`,
    protected_base_path: "/mcp",
    scopes_supported: ["files:read", "files:write"],
  });
}

export async function createClient(ctx: BenchContext, serverId: string): Promise<{ client_id: string; client_secret: string }> {
  return ctx.admin("POST", `/svc/resource-servers/${serverId}/clients`, {
    client_name: "bench workload",
    redirect_uris: [],
    kind: "m2m",
    allowed_scopes: ["files:read", "files:write"],
  });
}

export async function getToken(ctx: BenchContext, client: { client_id: string; client_secret: string }): Promise<string> {
  const res = await fetch(`${ctx.url}/oauth/token`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString("base64")}`,
    },
    body: "grant_type=client_credentials&scope=files%3Aread",
  });
  if (!res.ok) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** The request a resource server sends to introspect `token` (RFC 7662, Basic rs_id:secret). */
export function introspectionRequest(server: { id: string; introspection_secret: string }, token: string): AutocannonRequest {
  return {
    method: "POST",
    path: "/oauth/introspect",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      authorization: `Basic ${Buffer.from(`${server.id}:${server.introspection_secret}`).toString("base64")}`,
    },
    body: new URLSearchParams({ token }).toString(),
  };
}
