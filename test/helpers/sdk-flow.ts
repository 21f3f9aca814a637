// What the toolgate/sdk tests share: the sample notes server taken to `ready` in Toolgate (as
// docs/lifecycle.md does it), an OAuth client application built on the official MCP SDK client
// (its OAuthClientProvider, the part every MCP client application writes), and a browser that
// signs a user in on Toolgate's pages.
import { expect } from "vitest";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Harness } from "./harness";
import { mapAndActivate, register, rescan } from "./lifecycle-flow";
import { browser } from "./signin-flow";
import { startSampleServer } from "../../examples/sample-mcp-server/server";

/** The sample server registered, scanned, mapped (notes:read, notes:write, server_time public) and activated; it is stopped again, its port kept. */
export async function readySample(h: Harness): Promise<{ id: string; secret: string; port: number; resource: string }> {
  const open = await startSampleServer();
  try {
    const rs = await register(h, open.url, { path: "/mcp" });
    expect((await rescan(h, rs.id)).status).toBe(200);
    await mapAndActivate(h, rs.id, {
      scopes: { "notes:read": "Read notes", "notes:write": "Write notes" },
      mappings: { list_notes: ["notes:read"], read_note: ["notes:read"], create_note: ["notes:write"], delete_note: ["notes:write"] },
      publicTools: ["server_time"],
    });
    return { id: rs.id, secret: rs.secret, port: Number(new URL(open.url).port), resource: rs.body.resource_url };
  } finally {
    await open.close();
  }
}

/**
 * A client application's OAuthClientProvider, in memory. `client` is how the application knows
 * its client: pre-registered credentials today. With dynamic registration, pass undefined and the
 * SDK registers (it calls saveClientInformation): that is the only change.
 */
export class AppProvider implements OAuthClientProvider {
  /** The last authorization URL the SDK asked the user's browser to open. */
  authorizationUrl: URL | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = "";

  constructor(
    readonly redirectUrl: string,
    private client: OAuthClientInformationMixed | undefined,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: "sdk e2e app", redirect_uris: [this.redirectUrl], grant_types: ["authorization_code"], token_endpoint_auth_method: "client_secret_basic" };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
  get accessToken(): string {
    return this.saved!.access_token;
  }
}

/** The user in the browser: opens the authorization URL on Toolgate, signs in, allows; resolves to the callback URL (code, state, iss). */
export async function signInInBrowser(h: Harness, authorizationUrl: URL, email: string, password: string): Promise<URL> {
  const b = browser(h.url, h.url);
  const login = await b.open(authorizationUrl);
  expect(login.status, login.html).toBe(200);
  const consent = await b.submit(login, { email, password });
  // A consent the user gave this client before is remembered: the code comes at once.
  expect([200, 302], consent.html).toContain(consent.status);
  const done = consent.status === 302 ? consent : await b.submit(consent, { decision: "allow" });
  const code = done.location?.searchParams.get("code");
  if (done.status !== 302 || !code) throw new Error(`no code: ${done.status} ${done.location ?? done.html}`);
  return done.location!;
}
