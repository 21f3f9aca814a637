// The OAuthClientProvider an interactive MCP client supplies, for the end-to-end tests of the
// official SDK clients (v1 @modelcontextprotocol/sdk and v2 @modelcontextprotocol/client share
// this interface): it keeps what the SDK asks it to keep (client information, tokens, the PKCE
// verifier) and, where a desktop client would open a browser, drives Toolgate's sign-in pages
// over HTTP (signin-flow.ts) and keeps the callback URL the browser was sent to.
import { browser } from "./signin-flow";

export interface ProviderOptions {
  publicUrl: string;
  serverUrl: string;
  user: { email: string; password: string };
  redirectUrl: string;
  /** CIMD: the client's metadata document URL (its client_id). */
  clientMetadataUrl?: string;
  /** A pre-registered (public) client: its client_id; the SDK then registers nothing. */
  preRegistered?: { client_id: string };
  clientName?: string;
}

export class SignInProvider {
  private info: Record<string, unknown> | undefined;
  private stored: Record<string, unknown> | undefined;
  private verifier = "";
  /** Where the sign-in sent the browser back to (code, state, iss). */
  callback: URL | undefined;
  /** How many times the SDK asked for a sign-in. */
  authorizations = 0;

  constructor(private readonly opts: ProviderOptions) {
    this.info = opts.preRegistered;
  }

  get redirectUrl(): string {
    return this.opts.redirectUrl;
  }

  get clientMetadataUrl(): string | undefined {
    return this.opts.clientMetadataUrl;
  }

  get clientMetadata() {
    return {
      redirect_uris: [this.opts.redirectUrl],
      client_name: this.opts.clientName ?? "SDK e2e client",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  clientInformation() {
    return this.info as never;
  }
  saveClientInformation(info: Record<string, unknown>): void {
    this.info = info;
  }
  tokens() {
    return this.stored as never;
  }
  saveTokens(tokens: Record<string, unknown>): void {
    this.stored = tokens;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }

  /** The registered client_id (DCR/CIMD/pre-registered), once known. */
  get clientId(): string | undefined {
    return this.info?.client_id as string | undefined;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizations++;
    const b = browser(this.opts.publicUrl, this.opts.serverUrl);
    const login = await b.open(url);
    if (login.status !== 200) throw new Error(`sign-in page: ${login.status} ${login.location ?? login.html}`);
    const consent = await b.submit(login, this.opts.user);
    if (consent.status !== 200 && consent.status !== 302) throw new Error(`consent page: ${consent.status} ${consent.location ?? consent.html}`);
    // A consent given before is remembered: then the code comes at once.
    const done = consent.status === 302 ? consent : await b.submit(consent, { decision: "allow" });
    if (done.status !== 302 || !done.location) throw new Error(`no redirect after consent: ${done.status}`);
    this.callback = done.location;
  }
}
