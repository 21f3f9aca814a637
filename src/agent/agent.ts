// toolgate/agent: tokens for an AI agent (docs/agents.md). An agent registered in Toolgate
// (POST /svc/sdkmgr/agents) holds a client id and secret; this client gets its access tokens
// (client_credentials, one per MCP server: RFC 8707 `resource`) and:
// - caches each token per (server, scopes) until shortly before it expires (the spec, Authentication
//   §6: "cached and reused until near expiry");
// - refreshes it in the background before then, so callers never wait for an expiry;
// - asks once for concurrent callers (single flight);
// - retries failures with exponential backoff and jitter, honouring Retry-After (token-request.ts);
// - after a 403 insufficient_scope, asks for the union of what it held and what the server named
//   (stepUp), and remembers it for that server;
// - plugs into the official MCP SDK's transports as their auth provider (mcp-auth-provider.ts).
import { parseBearerChallenge, unionOfScopes } from "./challenge";
import { DEFAULT_RETRY, requestToken, type RetryOptions, type TokenSet } from "./token-request";

export interface ToolgateAgentOptions {
  /** Toolgate's URL (its issuer); the token endpoint is `${issuer}/oauth/token` unless given. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  tokenEndpoint?: string;
  /** Refresh this long before expiry (default: a fifth of the token's lifetime, at most 60 s). */
  refreshBeforeExpiryMs?: number;
  retry?: Partial<RetryOptions>;
  fetch?: typeof fetch;
  /** Injected for tests: the clock (ms), randomness and waiting. */
  now?: () => number;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Told of a background refresh that failed (the current token is kept while it lasts). */
  onError?: (e: unknown) => void;
}

interface Entry {
  resource: string;
  scopes: string[];
  current?: TokenSet;
  inflight?: Promise<TokenSet>;
  timer?: ReturnType<typeof setTimeout>;
}

/** A token is not handed out in its last seconds: it could expire on the way. */
const EXPIRY_MARGIN_MS = 5_000;
const MAX_REFRESH_BEFORE_MS = 60_000;

const keyOf = (resource: string, scopes: readonly string[]) => `${resource} ${[...scopes].sort().join(" ")}`;

export class ToolgateAgent {
  private readonly entries = new Map<string, Entry>();
  /** Per server: the scopes asked for so far (the base of a step-up's union). */
  private readonly wanted = new Map<string, string[]>();
  private readonly tokenEndpoint: string;
  private readonly now: () => number;
  private closed = false;

  constructor(private readonly opts: ToolgateAgentOptions) {
    this.tokenEndpoint = opts.tokenEndpoint ?? `${opts.issuer.replace(/\/+$/, "")}/oauth/token`;
    this.now = opts.now ?? Date.now;
  }

  /** An access token for `resource` with `scopes` (all the agent may hold there when empty). */
  async token(resource: string, scopes: readonly string[] = []): Promise<string> {
    return (await this.tokenSet(resource, scopes)).accessToken;
  }

  /** The token with its granted scopes and expiry. */
  async tokenSet(resource: string, scopes: readonly string[] = []): Promise<TokenSet> {
    this.wanted.set(resource, unionOfScopes(this.wanted.get(resource) ?? [], scopes));
    const entry = this.entry(resource, scopes);
    if (entry.current && this.now() < entry.current.expiresAt - EXPIRY_MARGIN_MS) return entry.current;
    return this.fetchOnce(entry);
  }

  /**
   * After a 403 with error="insufficient_scope" from `resource`: a token for the union of the
   * scopes asked for there so far and those the challenge names (a WWW-Authenticate value or the
   * scopes themselves). Asking for only the challenged scope would lose what the agent had.
   */
  async stepUp(resource: string, challenge: string | readonly string[]): Promise<TokenSet> {
    const named = typeof challenge === "string" ? (parseBearerChallenge(challenge)?.scope ?? []) : challenge;
    return this.tokenSet(resource, unionOfScopes(this.wanted.get(resource) ?? [], named));
  }

  /** The scopes asked for at `resource` so far (what a step-up starts from). */
  scopesFor(resource: string): string[] {
    return [...(this.wanted.get(resource) ?? [])];
  }

  /** Keeps a token obtained elsewhere (the MCP SDK's own re-authorization) as the one for its scopes. */
  adopt(resource: string, set: TokenSet): void {
    this.wanted.set(resource, unionOfScopes(this.wanted.get(resource) ?? [], set.scopes));
    const entry = this.entry(resource, set.scopes);
    entry.current = set;
    this.schedule(entry);
  }

  /** Forgets the tokens of `resource` (all of them, or those of `scopes`): the next call asks again. */
  invalidate(resource: string, scopes?: readonly string[]): void {
    for (const [key, entry] of this.entries) {
      if (entry.resource !== resource || (scopes && key !== keyOf(resource, scopes))) continue;
      clearTimeout(entry.timer);
      this.entries.delete(key);
    }
  }

  /** Stops every background refresh. */
  close(): void {
    this.closed = true;
    for (const entry of this.entries.values()) clearTimeout(entry.timer);
    this.entries.clear();
  }

  private entry(resource: string, scopes: readonly string[]): Entry {
    const key = keyOf(resource, scopes);
    let entry = this.entries.get(key);
    if (!entry) this.entries.set(key, (entry = { resource, scopes: [...scopes] }));
    return entry;
  }

  /** One request per entry at a time; every caller meanwhile gets its answer. */
  private fetchOnce(entry: Entry): Promise<TokenSet> {
    entry.inflight ??= requestToken(
      { tokenEndpoint: this.tokenEndpoint, clientId: this.opts.clientId, clientSecret: this.opts.clientSecret, resource: entry.resource, scopes: entry.scopes },
      {
        fetch: this.opts.fetch ?? fetch,
        now: this.now,
        random: this.opts.random ?? Math.random,
        sleep: this.opts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
        retry: { ...DEFAULT_RETRY, ...this.opts.retry },
      },
    )
      .then((set) => {
        entry.current = set;
        this.schedule(entry);
        return set;
      })
      .finally(() => (entry.inflight = undefined));
    return entry.inflight;
  }

  /** The background refresh of `entry`, shortly before its token expires. */
  private schedule(entry: Entry): void {
    clearTimeout(entry.timer);
    if (this.closed || !entry.current) return;
    const lifetime = entry.current.expiresIn * 1000;
    const before = this.opts.refreshBeforeExpiryMs ?? Math.min(MAX_REFRESH_BEFORE_MS, lifetime / 5);
    const delay = Math.max(0, entry.current.expiresAt - before - this.now());
    entry.timer = setTimeout(() => {
      this.fetchOnce(entry).catch((e) => this.opts.onError?.(e));
    }, delay);
    (entry.timer as { unref?: () => void }).unref?.();
  }
}
