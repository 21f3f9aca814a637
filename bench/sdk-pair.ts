// What the two sdk-overhead scenarios share: one `ready` server in Toolgate (the sample, scanned on a
// free port, every tool mapped to notes:read), a machine token for it, and the sample MCP server
// twice in a child process (bench/mcp-pair.ts): open, and behind toolgate/sdk on the registered port.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { BenchContext } from "./scenario";
import { startSampleServer } from "../examples/sample-mcp-server/server";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** Per-call latency, not queueing: a handful of concurrent callers (the p50 of 50 connections on a server doing ~100 req/s is mostly waiting). */
export const PER_CALL_CONNECTIONS = 4;
export const CALL = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_notes", arguments: {} } });
export const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

let child: ChildProcess | undefined;
let pair: Promise<{ open: string; guarded: string; token: string; pid: number | undefined }> | undefined;

const freePort = () =>
  new Promise<number>((ok, fail) => {
    const s = createServer().once("error", fail).listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });

/** One ready server (scanned on a free port, mapped, activated), a token for it, and the pair of MCP servers. */
export function sdkPair(ctx: BenchContext) {
  pair ??= (async () => {
    const port = await freePort();
    const scanned = await startSampleServer({ port });
    let rs: { id: string; introspection_secret: string };
    try {
      rs = await ctx.admin("POST", "/svc/resource-servers", { name: "bench sdk-overhead", public_base_url: scanned.url, protected_base_path: "/mcp" });
      const base = `/svc/resource-servers/${rs.id}`;
      await ctx.admin("POST", `${base}/rescan`);
      await ctx.admin("POST", `${base}/scopes`, { id: "notes:read", name: "Read notes" });
      await ctx.admin("PUT", `${base}/tool-scope-map`, {
        mappings: ["list_notes", "read_note", "create_note", "delete_note", "server_time"].map((tool_name) => ({ tool_name, scope_ids: ["notes:read"] })),
      });
      await ctx.admin("PUT", `${base}/access-policy`, { enabled: false });
      await ctx.admin("POST", `${base}/activate`);
    } finally {
      await scanned.close();
    }
    const client = await ctx.admin<{ client_id: string; client_secret: string }>("POST", `/svc/resource-servers/${rs.id}/clients`, {
      client_name: "bench caller",
      kind: "m2m",
      redirect_uris: [],
      grant_types: ["client_credentials"],
      allowed_scopes: ["notes:read"],
      token_lifetime: 3600,
    });
    const tokenRes = await fetch(`${ctx.url}/oauth/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "client_credentials", client_id: client.client_id, client_secret: client.client_secret, scope: "notes:read" }),
    });
    const token = ((await tokenRes.json()) as { access_token: string }).access_token;
    // The SDK talks to Toolgate by its issuer (TOOLGATE_PUBLIC_URL; the bench leaves the default).
    const issuer = ((await (await fetch(`${ctx.url}/.well-known/oauth-authorization-server`)).json()) as { issuer: string }).issuer;
    child = spawn(process.execPath, [join(ROOT, "node_modules/tsx/dist/cli.mjs"), join(ROOT, "bench/mcp-pair.ts")], {
      cwd: ROOT,
      env: { ...process.env, GUARDED_PORT: String(port), TOOLGATE_URL: issuer, TOOLGATE_RS_ID: rs.id, TOOLGATE_RS_SECRET: rs.introspection_secret, NODE_ENV: "production" },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const urls = await new Promise<{ open: string; guarded: string }>((ok, fail) => {
      let out = "";
      child!.stdout!.on("data", (d) => {
        out += d;
        const line = out.split("\n").find((l) => l.startsWith("{"));
        if (line) ok(JSON.parse(line));
      });
      child!.once("exit", (code) => fail(new Error(`bench/mcp-pair.ts exited (${code}): ${out}`)));
    });
    return { ...urls, token, pid: child.pid };
  })();
  return pair;
}

export async function stopSdkPair(): Promise<void> {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
}

