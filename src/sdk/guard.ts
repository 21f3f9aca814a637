// createToolgateGuard: everything an MCP server needs to sit behind Toolgate. See docs/sdk.md.
//
// Per request: CORS and RFC 9728 metadata (no token needed), then the bearer token (local JWT
// checks + cached introspection: token-checks.ts), then each tools/call in the JSON-RPC body
// against the compiled policy (tool-policy.ts). An allowed request reaches a fresh McpServer from
// the application's factory (stateless Streamable HTTP) whose tools/list answers only the tools the
// caller may call. In the background: the policy is revalidated with If-None-Match every
// `policyRefreshMs`; on start the tool inventory is pushed as the manifest.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { ListToolsRequestSchema, type Tool } from "@modelcontextprotocol/sdk/types.js";
import { CredentialsRefused, ManifestRejected, ToolgateApi, type PolicyDocument } from "./toolgate-api";
import { TokenChecks, type Caller } from "./token-checks";
import { decideTool, policyScopes } from "./tool-policy";
import { bearerChallenge, metadataPaths, metadataUrl, type ProtectedResourceMetadata } from "./protected-resource";
import { manifestOf, readInventory, type Inventory } from "./inventory";

export const SDK_VERSION = "toolgate-sdk/0.1.0";

export interface GuardLogger {
  error(message: string): void;
  warn(message: string): void;
}

export interface ToolgateGuardOptions {
  /** Toolgate's issuer (its TOOLGATE_PUBLIC_URL). The only host the SDK ever talks to. */
  issuer: string;
  /** The resource server's `id` in Toolgate. */
  resourceServerId: string;
  /** Its introspection secret (shown once at registration or rotation). */
  introspectionSecret: string;
  /** The exact MCP endpoint URL = the server's `resource_url` in Toolgate (the tokens' audience). */
  resource: string;
  /** Builds the MCP server with its tools; called per request (stateless) and once at start. */
  createServer: () => McpServer | Promise<McpServer>;
  /** PRM `scopes_supported` and the scope of 401 challenges; default: every scope in the policy. */
  scopesSupported?: string[];
  /** PRM `resource_name`. */
  resourceName?: string;
  /** How often the policy is revalidated (ETag, 304). 0 = before every decision. Default 10 s. */
  policyRefreshMs?: number;
  /** How long an introspection answer is reused, never beyond the token's exp. Default 5 s. */
  introspectionCacheMs?: number;
  /** Bound of the per-token cache. Default 10,000. */
  maxCachedTokens?: number;
  /** Timeout of each call to Toolgate. Default 5 s. */
  requestTimeoutMs?: number;
  /** Largest JSON-RPC body read when no body parser ran before. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Where the one clear error about refused credentials goes. Default: console. */
  logger?: GuardLogger;
}

/** What a framework-free caller gets for one HTTP request. */
export type GuardDecision =
  | { ok: true; authInfo: AuthInfo }
  | { ok: false; status: 401 | 403 | 503; headers: Record<string, string>; body: { error: string; error_description: string } };

export interface GuardRequest {
  method: string;
  /** The Authorization header (tokens are accepted from nowhere else: RFC 6750 §2, MCP). */
  authorization?: string | undefined;
  /** The parsed JSON-RPC body (message or batch); undefined for GET/DELETE. */
  body?: unknown;
}

type NodeRequest = IncomingMessage & { body?: unknown; auth?: AuthInfo; originalUrl?: string };
type Next = (err?: unknown) => void;

export interface ToolgateGuard {
  /** Reads the tool inventory, pushes the manifest, fetches the policy and starts polling. */
  start(): Promise<void>;
  /** Stops polling. */
  close(): Promise<void>;
  /** Express (or node:http) middleware: metadata at both well-known paths, the guarded MCP endpoint at the resource's path; anything else goes to `next` (404 without one). */
  readonly middleware: (req: NodeRequest, res: ServerResponse, next?: Next) => void;
  /** The framework-free decision for one request to the MCP endpoint. */
  authorize(req: GuardRequest): Promise<GuardDecision>;
  /** The tools of `tools` the caller may call (tools/list). */
  filterTools<T extends Pick<Tool, "name">>(tools: T[], scopes: readonly string[]): T[];
  /** RFC 9728 document. */
  metadata(): ProtectedResourceMetadata;
  /** Revalidates the policy now. */
  refreshPolicy(): Promise<void>;
}

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  "access-control-allow-headers": "Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Last-Event-ID",
  "access-control-expose-headers": "WWW-Authenticate, Mcp-Session-Id",
  "access-control-max-age": "86400",
};

const consoleLogger: GuardLogger = {
  error: (m) => console.error(`[toolgate/sdk] ${m}`),
  warn: (m) => console.warn(`[toolgate/sdk] ${m}`),
};

export function createToolgateGuard(options: ToolgateGuardOptions): ToolgateGuard {
  return new Guard(options);
}

class Guard implements ToolgateGuard {
  private readonly api: ToolgateApi;
  private readonly tokens: TokenChecks;
  private readonly log: GuardLogger;
  private readonly resource: string;
  private readonly resourcePath: string;
  private readonly prmPaths: { pathInserted: string; root: string };
  private readonly prmUrl: string;
  private readonly refreshMs: number;
  private policy: PolicyDocument | undefined;
  private etag: string | undefined;
  private inventory: Inventory = { tools: [], hashes: new Map() };
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  /** Set while Toolgate refuses our credentials: every caller gets 503. */
  private refused: CredentialsRefused | undefined;
  private unreachableLogged = false;
  /** The inventory has not reached Toolgate yet (start, or Toolgate was down then). */
  private manifestPending = false;

  constructor(private readonly opts: ToolgateGuardOptions) {
    const url = new URL(opts.resource);
    if (url.hash || url.search) throw new Error("toolgate/sdk: resource must be the MCP endpoint URL without query or fragment");
    new URL(opts.issuer); // throws on a bad issuer at construction, not at the first request
    this.resource = opts.resource;
    this.resourcePath = url.pathname.replace(/\/+$/, "") || "/";
    this.prmPaths = metadataPaths(opts.resource);
    this.prmUrl = metadataUrl(opts.resource);
    this.refreshMs = opts.policyRefreshMs ?? 10_000;
    this.log = opts.logger ?? consoleLogger;
    this.api = new ToolgateApi(opts.issuer, opts.resourceServerId, opts.introspectionSecret, opts.requestTimeoutMs ?? 5_000);
    this.tokens = new TokenChecks(this.api, {
      issuer: opts.issuer,
      resource: opts.resource,
      introspectionCacheMs: opts.introspectionCacheMs ?? 5_000,
      maxCachedTokens: opts.maxCachedTokens ?? 10_000,
      clockToleranceS: 5,
      now: Date.now,
      onBackgroundError: (e) => this.noteFailure(e),
    });
  }

  async start(): Promise<void> {
    this.inventory = await readInventory(this.opts.createServer);
    this.manifestPending = true;
    await this.refreshPolicy();
    if (this.refreshMs > 0) {
      this.timer = setInterval(() => void this.refreshPolicy(), this.refreshMs);
      this.timer.unref();
    }
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.refreshing;
  }

  metadata(): ProtectedResourceMetadata {
    return {
      resource: this.resource,
      authorization_servers: [this.opts.issuer],
      scopes_supported: this.scopes(),
      bearer_methods_supported: ["header"],
      ...(this.opts.resourceName ? { resource_name: this.opts.resourceName } : {}),
    };
  }

  private scopes(): string[] {
    return this.opts.scopesSupported ?? policyScopes(this.policy);
  }

  refreshPolicy(): Promise<void> {
    this.refreshing ??= this.guarded(async () => {
      // The manifest first (it may change the policy); retried at every refresh until Toolgate takes it.
      if (this.manifestPending) {
        try {
          await this.api.pushManifest(manifestOf(this.inventory), SDK_VERSION);
          this.manifestPending = false;
        } catch (e) {
          if (!(e instanceof ManifestRejected)) throw e;
          this.manifestPending = false;
          this.log.error(e.message);
        }
      }
      const fetched = await this.api.policy(this.etag);
      if (fetched) {
        this.policy = fetched.document;
        this.etag = fetched.etag;
      }
      if (this.refused) this.log.warn("Toolgate accepts this server's credentials again");
      this.refused = undefined;
    }).finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** Runs a call to Toolgate; refused credentials and outages are logged once per episode, never thrown. */
  private async guarded(call: () => Promise<void>): Promise<void> {
    try {
      await call();
      this.unreachableLogged = false;
    } catch (e) {
      this.noteFailure(e);
    }
  }

  private noteFailure(e: unknown): void {
    if (e instanceof CredentialsRefused) {
      if (!this.refused) this.log.error(e.message);
      this.refused = e;
    } else if (!this.unreachableLogged) {
      this.unreachableLogged = true;
      this.log.warn(`Toolgate could not be reached (${(e as Error).message}); keeping the last policy, tools are denied until one is fetched`);
    }
  }

  filterTools<T extends Pick<Tool, "name">>(tools: T[], scopes: readonly string[]): T[] {
    return tools.filter((t) => decideTool(this.policy, this.inventory.hashes, t.name, scopes).allowed);
  }

  async authorize(req: GuardRequest): Promise<GuardDecision> {
    if (this.refused) return this.unavailable();
    const token = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(req.authorization ?? "")?.[1];
    if (!token) {
      return req.authorization
        ? this.unauthorized("invalid_token", "the Authorization header must be: Bearer <access token>")
        : this.unauthorized(undefined, "a bearer token is required");
    }
    let verdict;
    try {
      verdict = await this.tokens.check(token);
    } catch (e) {
      this.noteFailure(e);
      return this.unavailable();
    }
    if (!verdict.ok) return this.unauthorized("invalid_token", verdict.description);
    const calls = toolCalls(req.body);
    if (calls.length > 0 || listsTools(req.body)) {
      if (this.refreshMs === 0) await this.refreshPolicy();
      if (this.refused) return this.unavailable();
    }
    const denied = this.checkCalls(calls, verdict.caller);
    return denied ?? { ok: true, authInfo: authInfoOf(verdict.caller, this.resource) };
  }

  private checkCalls(calls: string[], caller: Caller): GuardDecision | undefined {
    const needed = new Set<string>();
    let description = "";
    for (const tool of calls) {
      const d = decideTool(this.policy, this.inventory.hashes, tool, caller.scopes);
      if (d.allowed) continue;
      // Not a scope problem: plain 403 (no insufficient_scope, or clients would re-authorize in a loop; notes R11).
      if (d.kind === "denied") return this.failure(403, {}, "access_denied", d.description);
      d.needed.forEach((s) => needed.add(s));
      description ||= d.description;
    }
    if (needed.size === 0) return undefined;
    // MCP step-up (notes R9, S3): name the scopes held plus those needed, so a client that
    // re-authorizes with exactly the challenged scope keeps what it had.
    const scope = [...new Set([...caller.scopes, ...needed])];
    const challenge = bearerChallenge({ resourceMetadata: this.prmUrl, scope, error: "insufficient_scope", description });
    return this.failure(403, { "www-authenticate": challenge }, "insufficient_scope", description);
  }

  private unauthorized(error: "invalid_token" | undefined, description: string): GuardDecision {
    const challenge = bearerChallenge({ resourceMetadata: this.prmUrl, scope: this.scopes(), error, description });
    return this.failure(401, { "www-authenticate": challenge }, error ?? "unauthorized", description);
  }

  private unavailable(): GuardDecision {
    return this.failure(503, { "retry-after": "30" }, "temporarily_unavailable", "this server cannot check access right now (its authorization server refused it or is unreachable); its operator has been told");
  }

  private failure(status: 401 | 403 | 503, headers: Record<string, string>, error: string, description: string): GuardDecision {
    return { ok: false, status, headers: { ...headers, "cache-control": "no-store" }, body: { error, error_description: description } };
  }

  readonly middleware = (req: NodeRequest, res: ServerResponse, next?: Next): void => {
    const path = new URL(req.originalUrl ?? req.url ?? "/", "http://x").pathname;
    if (path === this.prmPaths.pathInserted || path === this.prmPaths.root) return this.serveMetadata(req, res);
    if ((path.replace(/\/+$/, "") || "/") !== this.resourcePath) {
      if (next) return next();
      return void res.writeHead(404).end();
    }
    this.serveMcp(req, res).catch((e) => {
      if (next) return next(e);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  };

  private serveMetadata(req: IncomingMessage, res: ServerResponse): void {
    if (req.method === "OPTIONS") return void res.writeHead(204, CORS).end();
    if (req.method !== "GET" && req.method !== "HEAD") return void res.writeHead(405, { ...CORS, allow: "GET, HEAD, OPTIONS" }).end();
    const body = JSON.stringify(this.metadata());
    res.writeHead(200, { ...CORS, "content-type": "application/json", "cache-control": "public, max-age=300" });
    res.end(req.method === "HEAD" ? undefined : body);
  }

  private async serveMcp(req: NodeRequest, res: ServerResponse): Promise<void> {
    if (req.method === "OPTIONS") return void res.writeHead(204, CORS).end();
    const body = req.method === "POST" ? (req.body !== undefined ? req.body : await readJson(req, this.opts.maxBodyBytes ?? 1024 * 1024)) : undefined;
    if (body === INVALID_JSON) return sendJson(res, 400, CORS, { error: "invalid_request", error_description: "the body is not JSON" });
    const decision = await this.authorize({ method: req.method ?? "GET", authorization: req.headers.authorization, body });
    if (!decision.ok) return sendJson(res, decision.status, { ...CORS, ...decision.headers }, decision.body);
    // Stateless Streamable HTTP: no SSE stream to open, no session to end.
    if (req.method !== "POST") return sendJson(res, 405, { ...CORS, allow: "POST, OPTIONS" }, { error: "method_not_allowed", error_description: "this server is stateless: POST only" });
    for (const [k, v] of Object.entries(CORS)) res.setHeader(k, v);
    req.auth = decision.authInfo;
    const server = await this.opts.createServer();
    // tools/list answers only what this caller may call (and public tools).
    server.server.setRequestHandler(ListToolsRequestSchema, (_request, extra) => ({ tools: this.filterTools(this.inventory.tools, extra.authInfo?.scopes ?? []) }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }
}

const INVALID_JSON = Symbol("invalid JSON");

async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return INVALID_JSON;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return INVALID_JSON;
  }
}

function sendJson(res: ServerResponse, status: number, headers: Record<string, string>, body: unknown): void {
  res.writeHead(status, { ...headers, "content-type": "application/json" }).end(JSON.stringify(body));
}

const messagesOf = (body: unknown): unknown[] => (Array.isArray(body) ? body : body === undefined ? [] : [body]);
const methodOf = (m: unknown) => (m && typeof m === "object" ? (m as { method?: unknown }).method : undefined);

/** Names of the tools a JSON-RPC message or batch calls (a name that is not a string is checked as one). */
function toolCalls(body: unknown): string[] {
  return messagesOf(body).flatMap((m) => (methodOf(m) === "tools/call" ? [String((m as { params?: { name?: unknown } }).params?.name)] : []));
}

function listsTools(body: unknown): boolean {
  return messagesOf(body).some((m) => methodOf(m) === "tools/list");
}

function authInfoOf(caller: Caller, resource: string): AuthInfo {
  return { token: caller.token, clientId: caller.clientId, scopes: caller.scopes, expiresAt: caller.expiresAt, resource: new URL(resource), extra: { subject: caller.subject } };
}
