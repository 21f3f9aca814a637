// The sample MCP server of docs/lifecycle.md: a notes app over Streamable HTTP (official SDK,
// stateless: one McpServer + transport per request) at http://HOST:PORT/mcp.
//
//   npx tsx examples/sample-mcp-server/server.ts                  # open: anyone may call it
//   TOOLGATE_URL=http://localhost:8080 TOOLGATE_RS_ID=... TOOLGATE_RS_SECRET=... \
//     npx tsx examples/sample-mcp-server/server.ts                # behind Toolgate (toolgate/sdk)
//
// Environment: PORT (default 3333), HOST (default 127.0.0.1), and the three TOOLGATE_* variables,
// which switch enforcement on. GET /readyz answers 200 once it serves (503 while starting).
// Behind Toolgate the whole protection is the guard below (docs/sdk.md).
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import express from "express";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createToolgateGuard, type ToolgateGuard, type ToolgateGuardOptions } from "toolgate/sdk";
import { buildNotesServer, type NoteStore } from "./notes-tools";

const MCP_PATH = "/mcp";

/** What the sample needs to sit behind Toolgate; the rest of the guard's options may be tuned too. */
export type SampleToolgateOptions = Pick<ToolgateGuardOptions, "issuer" | "resourceServerId" | "introspectionSecret"> &
  Partial<Omit<ToolgateGuardOptions, "issuer" | "resourceServerId" | "introspectionSecret" | "createServer">>;

export interface SampleServer {
  /** Base URL (public_base_url); the MCP endpoint is `${url}/mcp`. */
  url: string;
  guard?: ToolgateGuard;
  close(): Promise<void>;
}

export async function startSampleServer(opts: { port?: number; host?: string; toolgate?: SampleToolgateOptions } = {}): Promise<SampleServer> {
  const store: NoteStore = { notes: new Map([["welcome", "Hello from the sample MCP server"]]) };
  const host = opts.host ?? "127.0.0.1";
  const app = express();
  app.use(express.json({ limit: "1mb" }));
  // 200 once it serves as configured (behind Toolgate: manifest pushed, policy fetched), 503 until
  // then: what a script polls before its first call (docs/lifecycle.md), as with Toolgate's /readyz.
  let ready = false;
  app.get("/readyz", (_req, res) => void res.status(ready ? 200 : 503).json({ ready }));
  const http: Server = await new Promise((resolve) => {
    const s = app.listen(opts.port ?? 0, host, () => resolve(s));
  });
  const url = `http://${host}:${(http.address() as AddressInfo).port}`;

  let guard: ToolgateGuard | undefined;
  if (opts.toolgate) {
    // This is all it takes (docs/sdk.md): the guard serves the RFC 9728 metadata and the MCP
    // endpoint at the resource's path, and enforces Toolgate's policy on every request.
    guard = createToolgateGuard({ resource: `${url}${MCP_PATH}`, createServer: () => buildNotesServer(store), ...opts.toolgate });
    app.use(guard.middleware);
    await guard.start();
  } else {
    app.post(MCP_PATH, async (req, res) => {
      const server = buildNotesServer(store);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on("close", () => void Promise.all([transport.close(), server.close()]));
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    });
  }
  ready = true;
  return {
    url,
    guard,
    close: async () => {
      await guard?.close();
      await new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      });
    },
  };
}

// Run directly: read the environment and serve until stopped. (argv[1] may be a symlinked path;
// import.meta.url is always the real one.)
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const env = process.env;
  const toolgate =
    env.TOOLGATE_URL && env.TOOLGATE_RS_ID && env.TOOLGATE_RS_SECRET
      ? { issuer: env.TOOLGATE_URL, resourceServerId: env.TOOLGATE_RS_ID, introspectionSecret: env.TOOLGATE_RS_SECRET }
      : undefined;
  const started = await startSampleServer({ port: Number(env.PORT ?? 3333), host: env.HOST ?? "127.0.0.1", toolgate });
  console.log(`sample MCP server on ${started.url}${MCP_PATH} (${toolgate ? "behind Toolgate" : "open, no authorization"})`);
}
