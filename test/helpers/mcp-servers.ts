// Real MCP servers for scan tests, built with the official SDK on ephemeral ports, plus plain HTTP
// servers that misbehave (HTTP 500, never answer, not MCP, too large, redirect, reset the
// connection). Nothing is mocked: the scanner talks to these over real sockets exactly as it
// would to a production server. Every server listens on port 0 and keeps its port until close(),
// so no other test file running in parallel can take it over. They listen on 127.0.0.1: a
// Toolgate that scans them needs TOOLGATE_SCAN_ALLOW_PRIVATE=1.
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import { createServer as createTcpServer, type AddressInfo } from "node:net";
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/** Stateless Streamable HTTP: one server and transport per request (the SDK's documented pattern). */
export async function serveStateless(server: McpServer | Server, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

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
  /** Resolves when the first request arrives. */
  hit: Promise<void>;
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

/** A promise resolved by the first call of `onHit` (later calls do nothing). */
function signal(): { hit: Promise<void>; onHit: () => void } {
  let onHit!: () => void;
  const hit = new Promise<void>((resolve) => (onHit = resolve));
  return { hit, onHit };
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
  const { hit, onHit } = signal();
  const { http, url } = await listen(async (req, res) => {
    requests++;
    onHit();
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
    await serveStateless(opts.pageSize ? paginated(tools, opts.pageSize) : highLevel(tools), req, res);
  });
  return {
    url,
    path,
    authorizations,
    get requests() {
      return requests;
    },
    hit,
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
  /** Resolves when the first request arrives: await it instead of polling with a time cap. */
  hit: Promise<void>;
  /** "hang": answer every held request, and every later one, with HTTP 500. */
  release(): void;
  close(): Promise<void>;
}

export type RawBehaviour = "http500" | "hang" | "html" | "huge" | "redirect";

/**
 * A plain HTTP server with a fixed behaviour, for the ways a scan can fail. "hang" holds every
 * request unanswered until release(); "redirect" answers 307 to `location` (default: another
 * path of the same server).
 */
export async function startRawServer(behaviour: RawBehaviour, opts: { location?: string } = {}): Promise<RawTestServer> {
  let hits = 0;
  const { hit, onHit } = signal();
  const held: ServerResponse[] = [];
  let released = false;
  const { http, url } = await listen((req, res) => {
    hits++;
    onHit();
    req.resume();
    switch (behaviour) {
      case "http500":
        res.writeHead(500, { "Content-Type": "text/plain" }).end("internal error");
        return;
      case "hang":
        // Accepts the request and does not answer until released.
        if (released) res.writeHead(500, { "Content-Type": "text/plain" }).end("released");
        else held.push(res);
        return;
      case "html":
        res.writeHead(200, { "Content-Type": "text/html" }).end("<html><body>Welcome</body></html>");
        return;
      case "redirect":
        res.writeHead(307, { Location: opts.location ?? "/moved/mcp" }).end();
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
  return {
    url,
    hits: () => hits,
    hit,
    release() {
      released = true;
      for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(500, { "Content-Type": "text/plain" }).end("released");
    },
    close: closer(http),
  };
}

export interface ResettingServer {
  url: string;
  /** TCP connections accepted (and reset) so far. */
  connections(): number;
  close(): Promise<void>;
}

/**
 * A TCP server that resets every connection it accepts: a scan of it fails at the connection
 * level ("connection failed: ..."). It holds its port until close(), unlike a port that was
 * closed to get a refusal, which a parallel test could take over in between.
 */
export async function startResettingServer(): Promise<ResettingServer> {
  let connections = 0;
  const tcp = createTcpServer((socket) => {
    connections++;
    socket.resetAndDestroy();
  });
  await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(tcp.address() as AddressInfo).port}`,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => tcp.close(() => resolve())),
  };
}

export const SAMPLE_TOOLS: ToolSpec[] = [
  { name: "read_file", title: "Read a file", description: "Reads a file" },
  { name: "write_file", title: "Write a file", description: "Writes a file" },
  { name: "list_dir", description: "Lists a directory" },
  { name: "delete_file", description: "Deletes a file" },
];
