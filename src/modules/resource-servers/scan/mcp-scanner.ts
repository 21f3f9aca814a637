// Tool discovery: Toolgate acts as an MCP client (official SDK, Streamable HTTP) against a
// server's resource_url, runs initialize and tools/list (every page) and returns the tools.
// No database here: the scan service decides what the result means for the server's state.
//
// Bounds: one deadline for the whole scan, a byte budget over every response, a cap on pages
// and tools (a server whose cursor never ends cannot loop us), and only http(s) URLs.
// Network reach (SSRF): the host is resolved first and the scan refused, before any connection,
// when an address is loopback, private, link-local, metadata and the like (address-policy.ts),
// unless TOOLGATE_SCAN_ALLOW_PRIVATE is on. Every connection then goes to the checked address
// (pinned-fetch.ts: no second resolution, so DNS rebinding cannot redirect it), and redirects
// are never followed.
// The optional bearer token is sent as-is on this scan's requests and never kept; every failure
// message is scrubbed of it before it can reach a response, a log line or the database.
import { setMaxListeners } from "node:events";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { BudgetExceededError, ByteBudget, boundedFetch } from "../../../shared/outbound/bounded-fetch";
import { OutboundRefused, resolveAllowed } from "../../../shared/outbound/resolve";
import { PinnedConnection, RedirectNotFollowedError } from "../../../shared/outbound/pinned-fetch";

export interface ScannedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

export interface ScanOptions {
  timeoutMs: number;
  maxBytes: number;
  /** Forwarded once as `Authorization: Bearer ...`; never stored or logged. */
  bearerToken?: string;
  maxPages?: number;
  maxTools?: number;
  /** TOOLGATE_SCAN_ALLOW_PRIVATE: may the scan connect to loopback/private/link-local addresses? Default no. */
  allowPrivateNetworks?: boolean;
}

export type Scanner = (url: string, opts: ScanOptions) => Promise<ScannedTool[]>;

/** A failed scan; `reason` is safe to show an administrator and to store as last_scan_error. */
export class ScanFailure extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "ScanFailure";
  }
}

export const DEFAULT_MAX_PAGES = 100;
export const DEFAULT_MAX_TOOLS = 2000;
const MAX_TOOL_NAME = 256;
const CLIENT_INFO = { name: "toolgate-scanner", version: "1.0.0" };

export const scanMcpServer: Scanner = async (url, opts) => {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new ScanFailure("invalid URL: the resource_url cannot be parsed");
  }
  if (target.protocol !== "http:" && target.protocol !== "https:") {
    throw new ScanFailure(`unsupported URL scheme ${target.protocol} (only http and https servers can be scanned)`);
  }
  const deadline = new AbortController();
  // Every request of the scan listens on this one signal (a paginated scan makes many).
  setMaxListeners(4 * (opts.maxPages ?? DEFAULT_MAX_PAGES) + 16, deadline.signal);
  const timer = setTimeout(() => deadline.abort(new Error("scan deadline")), opts.timeoutMs);
  const budget = new ByteBudget(opts.maxBytes);
  let connection: PinnedConnection | undefined;
  let client: Client | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    deadline.signal.addEventListener("abort", () => reject(new ScanFailure(`timeout: no complete answer within ${opts.timeoutMs} ms`)), { once: true });
  });
  timedOut.catch(() => undefined); // also fires when `finally` aborts after success; only the race reads it
  const scan = async () => {
    const pinned = await resolveAllowed(target, opts.allowPrivateNetworks ?? false).catch((e) => {
      throw e instanceof OutboundRefused ? new ScanFailure(e.reason) : e;
    });
    if (deadline.signal.aborted) throw new ScanFailure(`timeout: no complete answer within ${opts.timeoutMs} ms`);
    connection = new PinnedConnection(target, pinned);
    const transport = new StreamableHTTPClientTransport(target, {
      fetch: boundedFetch(budget, deadline.signal, connection.fetch),
      requestInit: opts.bearerToken ? { headers: { Authorization: `Bearer ${opts.bearerToken}` } } : undefined,
      // A scan is one short conversation: do not keep reconnecting a dropped SSE stream.
      reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
    });
    client = new Client(CLIENT_INFO, { capabilities: {} });
    // Errors of the background SSE stream are not the scan's result; the requests below decide it.
    client.onerror = () => undefined;
    return listAllTools(client, transport, opts, deadline.signal);
  };
  try {
    return await Promise.race([scan(), timedOut]);
  } catch (e) {
    throw toScanFailure(e, { budget, timedOut: deadline.signal.aborted, timeoutMs: opts.timeoutMs, secret: opts.bearerToken });
  } finally {
    clearTimeout(timer);
    if (!deadline.signal.aborted) deadline.abort(new Error("scan finished"));
    await client?.close().catch(() => undefined);
    connection?.close();
  }
};

async function listAllTools(client: Client, transport: StreamableHTTPClientTransport, opts: ScanOptions, signal: AbortSignal): Promise<ScannedTool[]> {
  const maxPages = opts.maxPages ?? DEFAULT_MAX_PAGES;
  const maxTools = opts.maxTools ?? DEFAULT_MAX_TOOLS;
  const requestOptions = { signal, timeout: opts.timeoutMs };
  await client.connect(transport, requestOptions);
  const tools = new Map<string, ScannedTool>();
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    if (page > maxPages) throw new ScanFailure(`tools/list did not finish within ${maxPages} pages`);
    const result = await client.listTools(cursor === undefined ? {} : { cursor }, requestOptions);
    for (const t of result.tools) {
      if (typeof t.name !== "string" || t.name.length === 0 || t.name.length > MAX_TOOL_NAME || /[\x00-\x1f\x7f]/.test(t.name)) {
        throw new ScanFailure(`invalid tool name ${JSON.stringify(String(t.name).slice(0, 80))} (1-${MAX_TOOL_NAME} characters, no control characters)`);
      }
      if (tools.has(t.name)) throw new ScanFailure(`tools/list returned the tool ${JSON.stringify(t.name)} twice`);
      tools.set(t.name, {
        name: t.name,
        title: t.title ?? (t.annotations?.title as string | undefined),
        description: t.description,
        inputSchema: t.inputSchema as Record<string, unknown> | undefined,
        annotations: t.annotations as Record<string, unknown> | undefined,
      });
      if (tools.size > maxTools) throw new ScanFailure(`the server lists more than ${maxTools} tools`);
    }
    cursor = result.nextCursor;
    if (!cursor) return [...tools.values()];
  }
}

interface FailureContext {
  budget: ByteBudget;
  timedOut: boolean;
  timeoutMs: number;
  secret?: string;
}

/** Turns whatever the SDK or the network threw into one administrator-readable reason. */
function toScanFailure(e: unknown, ctx: FailureContext): ScanFailure {
  const reason = describe(e, ctx);
  return new ScanFailure(scrub(reason, ctx.secret));
}

function describe(e: unknown, ctx: FailureContext): string {
  if (ctx.budget.exceeded || e instanceof BudgetExceededError) return `response too large: the upstream sent more than ${ctx.budget.max} bytes`;
  if (e instanceof ScanFailure) return e.reason;
  if (e instanceof RedirectNotFollowedError) return `redirects are not followed: the upstream answered HTTP ${e.status}`;
  if (ctx.timedOut) return `timeout: no complete answer within ${ctx.timeoutMs} ms`;
  if (e instanceof UnauthorizedError) return "authorization required: the upstream answered 401; pass an mcp_token for the scan";
  if (e instanceof StreamableHTTPError) {
    const code = e.code ?? -1;
    if (code === 401 || code === 403) return `authorization required: the upstream answered HTTP ${code}; pass an mcp_token that may list tools`;
    if (code === -1) return `not an MCP server: ${short(e.message.replace(/^Streamable HTTP error: /, ""))}`;
    return `HTTP error: the upstream answered HTTP ${code}`;
  }
  if (e instanceof McpError) return `MCP error from the upstream: ${short(e.message)}`;
  const cause = (e as { cause?: { code?: string; message?: string } })?.cause;
  if (e instanceof TypeError && cause?.code) return `connection failed: ${cause.code}`;
  if (e instanceof TypeError && /fetch failed/i.test(e.message)) return `connection failed: ${short(cause?.message ?? e.message)}`;
  if ((e as { name?: string })?.name === "ZodError" || e instanceof SyntaxError) return "not an MCP server: the answer is not a valid MCP (JSON-RPC) message";
  return `not a compatible MCP server: ${short(e instanceof Error ? e.message : String(e))}`;
}

const short = (s: string) => s.replace(/\s+/g, " ").trim().slice(0, 200);

function scrub(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join("[redacted]") : text;
}
