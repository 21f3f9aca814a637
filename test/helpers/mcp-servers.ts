// Real MCP servers for scan tests, built with the official SDK on ephemeral ports, plus plain HTTP
// servers that misbehave (HTTP 500, never answer, not MCP, too large). Nothing is mocked: the
// scanner talks to these over real sockets exactly as it would to a production server.
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

export interface ToolSpec {
  name: string;
  title?: string;
  description?: string;
}

export interface McpTestServer {
  /** The base URL (public_base_url); the MCP endpoint is at `${url}${path}`. */
  url: string;
  path: string;
  /** The Authorization header of every request received, in order. */
  authorizations: (string | undefined)[];
  /** Requests received (any method). */
  requests: number;
  /** Replaces the tool list the next scan sees (a server that changes between scans). */
  setTools(tools: ToolSpec[]): void;
  close(): Promise<void>;
}

export interface McpServerOptions {
  tools: ToolSpec[];
  /** When set, tools/list answers pages of this size with nextCursor (low-level SDK Server). */
  pageSize?: number;
  /** When set, requests without `Authorization: Bearer <token>` get 401 with a challenge. */
  requireBearer?: string;
  path?: string;
}

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ http: HttpServer; url: string }> {
  const http = createServer(handler);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return { http, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}` };
}

function closer(http: HttpServer): () => Promise<void> {
  return async () => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
}

/** The high-level SDK server: every tool registered with registerTool (zod input shape). */
function highLevel(tools: ToolSpec[]) {
  const server = new McpServer({ name: "test-mcp", version: "1.0.0" });
  for (const t of tools) {
    server.registerTool(t.name, { title: t.title, description: t.description, inputSchema: { input: z.string().optional() } }, async () => ({
      content: [{ type: "text" as const, text: `${t.name} ran` }],
    }));
  }
  return server;
}

/** The low-level SDK server with a paginated tools/list (cursor = index of the next page). */
function paginated(tools: ToolSpec[], pageSize: number) {
  const server = new Server({ name: "test-mcp-paged", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async (req) => {
    const start = req.params?.cursor ? Number(req.params.cursor) : 0;
    const page = tools.slice(start, start + pageSize).map((t) => ({
      name: t.name,
      title: t.title,
      description: t.description,
      inputSchema: { type: "object" as const, properties: { input: { type: "string" } } },
      annotations: { readOnlyHint: true },
    }));
    const next = start + pageSize;
    return { tools: page, ...(next < tools.length ? { nextCursor: String(next) } : {}) };
  });
  return server;
}

export async function startMcpServer(opts: McpServerOptions): Promise<McpTestServer> {
  let tools = opts.tools;
  const path = opts.path ?? "/mcp";
  const authorizations: (string | undefined)[] = [];
  let requests = 0;
  const { http, url } = await listen(async (req, res) => {
    requests++;
    authorizations.push(req.headers.authorization);
    if (!req.url?.startsWith(path)) {
      res.writeHead(404).end();
      return;
    }
    if (opts.requireBearer && req.headers.authorization !== `Bearer ${opts.requireBearer}`) {
      res.writeHead(401, { "WWW-Authenticate": 'Bearer realm="mcp", error="invalid_token"' }).end();
      return;
    }
    if (req.method !== "POST") {
      res.writeHead(405, { Allow: "POST" }).end(); // stateless: no standalone SSE stream
      return;
    }
    // Stateless Streamable HTTP: one server and transport per request (the SDK's documented pattern).
    const server = opts.pageSize ? paginated(tools, opts.pageSize) : highLevel(tools);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  return {
    url,
    path,
    authorizations,
    get requests() {
      return requests;
    },
    setTools(next) {
      tools = next;
    },
    close: closer(http),
  };
}

export interface RawTestServer {
  url: string;
  /** Requests received so far. */
  hits(): number;
  close(): Promise<void>;
}

/** A plain HTTP server with a fixed behaviour, for the ways a scan can fail. */
export async function startRawServer(behaviour: "http500" | "hang" | "html" | "huge"): Promise<RawTestServer> {
  let hits = 0;
  const { http, url } = await listen((req, res) => {
    hits++;
    req.resume();
    switch (behaviour) {
      case "http500":
        res.writeHead(500, { "Content-Type": "text/plain" }).end("internal error");
        return;
      case "hang":
        return; // accepts the request and never answers
      case "html":
        res.writeHead(200, { "Content-Type": "text/html" }).end("<html><body>Welcome</body></html>");
        return;
      case "huge": {
        // An endless JSON answer with no Content-Length: only the byte budget stops it.
        res.writeHead(200, { "Content-Type": "application/json" });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        const pump = () => {
          while (res.write(chunk)) {
            if (res.destroyed) return;
          }
          res.once("drain", pump);
        };
        res.on("close", () => res.removeAllListeners("drain"));
        pump();
        return;
      }
    }
  });
  return { url, hits: () => hits, close: closer(http) };
}

/** A port that was listening a moment ago and is now closed: connections are refused. */
export async function refusedUrl(): Promise<string> {
  const { http, url } = await listen(() => undefined);
  await closer(http)();
  return url;
}

export const SAMPLE_TOOLS: ToolSpec[] = [
  { name: "read_file", title: "Read a file", description: "Reads a file" },
  { name: "write_file", title: "Write a file", description: "Writes a file" },
  { name: "list_dir", description: "Lists a directory" },
  { name: "delete_file", description: "Deletes a file" },
];
