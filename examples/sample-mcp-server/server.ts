// The sample MCP server of docs/lifecycle.md: a notes app over Streamable HTTP (official SDK,
// stateless: one McpServer + transport per request) at http://HOST:PORT/mcp.
//
//   npx tsx examples/sample-mcp-server/server.ts                  # open: anyone may call it
//   TOOLGATE_URL=http://localhost:8080 TOOLGATE_RS_ID=... TOOLGATE_RS_SECRET=... \
//     npx tsx examples/sample-mcp-server/server.ts                # behind Toolgate
//
// Environment: PORT (default 3333), HOST (default 127.0.0.1), and the three TOOLGATE_* variables,
// which switch enforcement on (see toolgate-guard.ts).
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { NOTE_TOOLS, registerNoteTools, type NoteStore } from "./notes-tools";
import { ToolgateGuard, type GuardOptions } from "./toolgate-guard";

const MCP_PATH = "/mcp";
const MAX_BODY = 1024 * 1024;

export interface SampleServer {
  /** Base URL (public_base_url); the MCP endpoint is `${url}/mcp`. */
  url: string;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error("body too large");
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString("utf8") || "null");
}

/** Names of the tools a JSON-RPC message (or batch) calls. */
function toolCalls(body: unknown): string[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((m) => (m && typeof m === "object" && (m as { method?: unknown }).method === "tools/call" ? [String((m as { params?: { name?: unknown } }).params?.name)] : []));
}

export async function startSampleServer(opts: { port?: number; host?: string; guard?: GuardOptions } = {}): Promise<SampleServer> {
  const store: NoteStore = { notes: new Map([["welcome", "Hello from the sample MCP server"]]) };
  const guard = opts.guard ? new ToolgateGuard(opts.guard) : undefined;

  const http: Server = createServer(async (req, res) => {
    if (!req.url?.startsWith(MCP_PATH)) return void res.writeHead(404).end();
    if (req.method !== "POST") return void res.writeHead(405, { Allow: "POST" }).end();
    let body: unknown;
    try {
      body = await readJson(req);
    } catch {
      return void res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: "invalid JSON body" }));
    }
    if (guard) {
      const verdict = await guard.check(req.headers.authorization, toolCalls(body));
      if (!verdict.ok) {
        const scope = verdict.scope ? `, scope="${verdict.scope}"` : "";
        res.writeHead(verdict.status, {
          "content-type": "application/json",
          "www-authenticate": `Bearer error="${verdict.error}", error_description="${verdict.description}"${scope}`,
        });
        return void res.end(JSON.stringify({ error: verdict.error, error_description: verdict.description }));
      }
    }
    const server = new McpServer({ name: "toolgate-sample-notes", version: "1.0.0" });
    registerNoteTools(server, store);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise<void>((resolve) => http.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  if (guard) await guard.pushManifest(NOTE_TOOLS);
  return {
    url: `http://${opts.host ?? "127.0.0.1"}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

// Run directly: read the environment and serve until stopped.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const env = process.env;
  const guard =
    env.TOOLGATE_URL && env.TOOLGATE_RS_ID && env.TOOLGATE_RS_SECRET
      ? { toolgateUrl: env.TOOLGATE_URL, rsId: env.TOOLGATE_RS_ID, secret: env.TOOLGATE_RS_SECRET }
      : undefined;
  const started = await startSampleServer({ port: Number(env.PORT ?? 3333), host: env.HOST ?? "127.0.0.1", guard });
  console.log(`sample MCP server on ${started.url}${MCP_PATH} (${guard ? "behind Toolgate" : "open, no authorization"})`);
}
