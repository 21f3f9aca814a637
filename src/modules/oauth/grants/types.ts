// The contract of one grant type at the token endpoint. Adding a grant (authorization_code,
// refresh_token, jwt-bearer, ...) is one file implementing GrantHandler plus one line in
// grants/index.ts; the token endpoint dispatches on grant_type and the discovery metadata lists
// every registered grant (and whatever the grant contributes, e.g. authorization_endpoint).
import type { RegisteredClient } from "../../clients";
import type { TokenResponse } from "../../tokens";
import type { AuthenticatedClient, ClientAuthMethod, ClientCredentialsInput } from "../client-auth";
import type { ServerMetadata } from "../metadata";
import type { RawParams } from "../params";

export interface GrantContext {
  /** The form parameters of the token request (validate what the grant reads; see params.ts). */
  params: RawParams;
  /** The authenticated client, already checked to be approved and allowed this grant type. */
  client: RegisteredClient;
  authMethod: ClientAuthMethod;
}

/** RFC 6749 §5.1 success body; grants that issue refresh tokens add `refresh_token`, OpenID Connect adds `id_token`. */
export type GrantResult = TokenResponse & { refresh_token?: string; id_token?: string };

export interface GrantHandler {
  /** The grant_type value (RFC 6749 §4) this handler serves. */
  readonly grantType: string;
  /** Fields this grant adds to the authorization server metadata (RFC 8414 §2), given the issuer base URL. */
  metadata?(base: string): Partial<ServerMetadata>;
  /** Issues the tokens or throws an OAuthError (see ../errors.ts for the public descriptions). */
  handle(ctx: GrantContext): Promise<GrantResult>;
  /**
   * A grant that must see the request before client authentication (jwt-bearer: an ID-JAG needs
   * the client authenticated, a workload JWT has no client secret) handles the whole request: it
   * calls `authenticate` when it needs a client, checks the client's grant types itself, and
   * returns the client the token was issued to. The token endpoint then skips its own steps.
   */
  handleRequest?(input: ClientCredentialsInput, authenticate: (input: ClientCredentialsInput) => Promise<AuthenticatedClient>): Promise<{ result: GrantResult; client: RegisteredClient }>;
}
