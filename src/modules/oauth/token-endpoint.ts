// POST /oauth/token (RFC 6749 §3.2). Order of checks: the request is well-formed and names a
// grant we serve (invalid_request / unsupported_grant_type: syntax, nothing learned about
// clients), then the client authenticates (invalid_client), then it may use that grant
// (unauthorized_client), then the grant itself decides. Answers from memory only.
import type { LastUsedRecorder } from "../clients";
import type { ClientAuthenticator, ClientCredentialsInput } from "./client-auth";
import { OAuthError, oauthError } from "./errors";
import { NO_TOKEN_EVENTS, type OAuthOutcomes, type TokenEvents } from "./outcomes";
import type { GrantHandler, GrantResult } from "./grants";
import { required } from "./params";

export class TokenEndpoint {
  private readonly grants: ReadonlyMap<string, GrantHandler>;

  constructor(
    private readonly auth: ClientAuthenticator,
    grants: readonly GrantHandler[],
    private readonly lastUsed: LastUsedRecorder,
    private readonly outcomes: Pick<OAuthOutcomes, "tokenAnswered">,
    private readonly events: TokenEvents = NO_TOKEN_EVENTS,
  ) {
    this.grants = new Map(grants.map((g) => [g.grantType, g]));
  }

  /** Every answer is reported once: issued, or the OAuth error code (internal failures as server_error). */
  async exchange(input: ClientCredentialsInput): Promise<GrantResult> {
    try {
      const result = await this.answer(input);
      this.outcomes.tokenAnswered(input.params.grant_type as string, "issued");
      return result;
    } catch (e) {
      this.outcomes.tokenAnswered(typeof input.params.grant_type === "string" ? input.params.grant_type : undefined, e instanceof OAuthError ? e.error : "server_error");
      throw e;
    }
  }

  private async answer(input: ClientCredentialsInput): Promise<GrantResult> {
    const grant = this.grants.get(required(input.params, "grant_type"));
    if (!grant) throw oauthError("unsupported_grant_type", "grant_type not served here");
    if (grant.handleRequest) {
      const { result, client } = await grant.handleRequest(input, (i) => this.auth.authenticate(i));
      this.lastUsed.mark(client.id);
      this.events.issued(client.clientId, client.tenantId, grant.grantType);
      return result;
    }
    const { client, method } = await this.auth.authenticate(input);
    if (!client.grantTypes.has(grant.grantType)) throw oauthError("unauthorized_client", `grant_type ${grant.grantType} is not among the client's grant types`);
    const result = await grant.handle({ params: input.params, client, authMethod: method });
    this.lastUsed.mark(client.id); // in memory; written in batches off the request path
    this.events.issued(client.clientId, client.tenantId, grant.grantType); // counted, written in batches too
    return result;
  }
}
