// The agent as the official MCP SDK's auth provider (`authProvider` of StreamableHTTPClientTransport,
// in @modelcontextprotocol/sdk and @modelcontextprotocol/client alike): an OAuthClientProvider for
// the client_credentials flow whose tokens come from the ToolgateAgent's cache (agent.ts), so every
// MCP request carries a fresh token without a token request of its own.
//
// When the transport must re-authorize (a 401, or a 403 with error="insufficient_scope"), the SDK
// runs its own token request through prepareTokenRequest(): this provider asks there for the union
// of the scopes it held and those the server named, and keeps the answer in the agent's cache
// (saveTokens), which refreshes it from then on. @modelcontextprotocol/client passes the challenge's
// scopes to prepareTokenRequest itself; @modelcontextprotocol/sdk (v1) does not, so with it pass
// this provider's `fetch` to the transport as well: it reads the challenges of the server's answers.
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { ToolgateAgent } from "./agent";
import { parseBearerChallenge, unionOfScopes } from "./challenge";

export interface McpAuthOptions {
  /** The scopes to start with (default: none named, i.e. what the agent may hold on that server). */
  scopes?: readonly string[];
  clientName?: string;
}

export interface AgentCredentials {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

export class ToolgateMcpAuthProvider implements OAuthClientProvider {
  private scopes: string[];

  constructor(
    private readonly agent: ToolgateAgent,
    private readonly credentials: AgentCredentials,
    /** The MCP server's URL: the RFC 8707 resource its tokens are for. */
    readonly resource: string,
    private readonly opts: McpAuthOptions = {},
  ) {
    this.scopes = [...(opts.scopes ?? [])];
  }

  get redirectUrl(): undefined {
    return undefined; // non-interactive: client_credentials, no browser
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.opts.clientName ?? "toolgate agent",
      redirect_uris: [],
      grant_types: ["client_credentials"],
      token_endpoint_auth_method: "client_secret_basic",
      scope: this.scopes.length > 0 ? this.scopes.join(" ") : undefined,
    };
  }

  /** Pre-registered credentials, bound to the Toolgate that issued them (the SDK shows them to no other). */
  clientInformation(): OAuthClientInformationMixed {
    return { client_id: this.credentials.clientId, client_secret: this.credentials.clientSecret, issuer: this.credentials.issuer } as OAuthClientInformationMixed;
  }

  /** The cached token (fetched, refreshed and retried by the agent). */
  async tokens(): Promise<OAuthTokens> {
    const set = await this.agent.tokenSet(this.resource, this.scopes);
    return { access_token: set.accessToken, token_type: set.tokenType, expires_in: Math.max(0, Math.floor((set.expiresAt - Date.now()) / 1000)), scope: set.scopes.join(" ") };
  }

  /** A token the SDK obtained while re-authorizing: the agent keeps (and refreshes) it. */
  saveTokens(tokens: OAuthTokens): void {
    const scopes = tokens.scope ? tokens.scope.split(" ").filter(Boolean) : this.scopes;
    this.scopes = unionOfScopes(this.scopes, scopes);
    const expiresIn = tokens.expires_in ?? 300;
    this.agent.adopt(this.resource, { accessToken: tokens.access_token, tokenType: tokens.token_type, scopes: this.scopes, expiresIn, expiresAt: Date.now() + expiresIn * 1000 });
  }

  /** client_credentials for the union of the scopes held and those asked for now. */
  prepareTokenRequest(scope?: string): URLSearchParams {
    this.scopes = unionOfScopes(this.scopes, scope ? scope.split(" ").filter(Boolean) : []);
    const params = new URLSearchParams({ grant_type: "client_credentials" });
    if (this.scopes.length > 0) params.set("scope", this.scopes.join(" "));
    return params;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "all" || scope === "tokens") this.agent.invalidate(this.resource);
  }

  redirectToAuthorization(): void {
    throw new Error("an agent signs in with client credentials; there is no authorization page to open");
  }

  saveCodeVerifier(): void {
    // No authorization code flow.
  }

  codeVerifier(): string {
    throw new Error("an agent signs in with client credentials; there is no code verifier");
  }

  /**
   * A fetch for the transport (`fetch` option) that reads the server's insufficient_scope
   * challenges, so the next token request names their scopes too (needed with @modelcontextprotocol/sdk v1).
   */
  readonly fetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (res.status === 403) {
      const challenge = parseBearerChallenge(res.headers.get("www-authenticate"));
      if (challenge?.error === "insufficient_scope" && challenge.scope) this.scopes = unionOfScopes(this.scopes, challenge.scope);
    }
    return res;
  };
}
