// An MCP server built with the official SDK that Toolgate protects, the way a real deployment
// wires it (test-only; the real runtime SDK is toolgate/sdk): it serves RFC 9728 Protected Resource
// Metadata naming Toolgate as its authorization server, and a small guard in front of the MCP
// endpoint introspects every bearer token at Toolgate (RFC 7662, Basic rs_id:introspection_secret).
// An inactive or missing token gets 401 with `WWW-Authenticate: Bearer resource_metadata=...`, which
// is what sends an unmodified MCP client into discovery, registration and sign-in.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { serveStateless } from "./mcp-servers";

export interface ProtectedMcpServer {
  /** The origin (public_base_url in Toolgate). */
  origin: string;
  /** The MCP endpoint: the resource (RFC 8707/9728). */
  resource: string;
  /** Introspection credentials, set once the server is registered in Toolgate. */
  protect(credentials: { rsId: string; secret: string }): void;
  /** Introspection answers the guard received, in order (what each MCP request was let in with). */
  introspections: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

const PRM_PATH = "/.well-known/oauth-protected-resource";

export async function startProtectedMcpServer(opts: { toolgate: string; issuer: string; scopes: string[]; name: string }): Promise<ProtectedMcpServer> {
  let credentials: { rsId: string; secret: string } | undefined;
  const introspections: Array<Record<string, unknown>> = [];
  let origin = "";
  const resource = () => `${origin}/mcp`;
  const challenge = () => `Bearer resource_metadata="${origin}${PRM_PATH}/mcp", scope="${opts.scopes.join(" ")}"`;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", origin).pathname;
    if (req.method === "GET" && (path === `${PRM_PATH}/mcp` || path === PRM_PATH)) {
      res.writeHead(200, { "content-type": "application/json", "access-control-allow-origin": "*" });
      res.end(JSON.stringify({ resource: resource(), authorization_servers: [opts.issuer], scopes_supported: opts.scopes, bearer_methods_supported: ["header"] }));
      return;
    }
    if (path !== "/mcp") return void res.writeHead(404).end();
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (!token || !credentials) return void res.writeHead(401, { "WWW-Authenticate": challenge() }).end();
    const answer = await fetch(`${opts.toolgate}/oauth/introspect`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${Buffer.from(`${credentials.rsId}:${credentials.secret}`).toString("base64")}` },
      body: new URLSearchParams({ token }),
    }).then((r) => r.json() as Promise<Record<string, unknown>>);
    introspections.push(answer);
    if (answer.active !== true) return void res.writeHead(401, { "WWW-Authenticate": `Bearer error="invalid_token", resource_metadata="${origin}${PRM_PATH}/mcp"` }).end();
    if (req.method !== "POST") return void res.writeHead(405, { Allow: "POST" }).end();
    const server = new McpServer({ name: opts.name, version: "1.0.0" });
    server.registerTool("whoami", { description: "Who the token belongs to", inputSchema: { note: z.string().optional() } }, async ({ note }) => ({
      content: [{ type: "text" as const, text: `${String(answer.sub)} via ${String(answer.client_id)} with ${String(answer.scope)}${note ? ` (${note})` : ""}` }],
    }));
    await serveStateless(server, req, res);
  };
  const http = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    origin,
    resource: resource(),
    protect: (c) => (credentials = c),
    introspections,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
