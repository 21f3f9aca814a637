// POST /oauth/revoke (RFC 7009). The client authenticates exactly as at the token endpoint
// (§2.1), before anything else is looked at; `token` is required (400 invalid_request). The
// answer is 200 for a revoked, unknown, expired, malformed or someone else's token alike (§2.2),
// so it reveals nothing about tokens the client does not own.
//
// Each token type has a revoker (access tokens always; refresh tokens once sign-in is wired).
// token_type_hint only decides which revoker is asked first: §2.1 says a wrong or unknown hint must
// not fail the request, the server extends its search across all its token types.
import type { RevokingClient } from "../tokens";
import type { ClientAuthenticator, ClientCredentialsInput } from "./client-auth";
import { single, required } from "./params";

export interface TokenRevoker {
  /** The token_type_hint value of this type (RFC 7009 §4.1.2). */
  readonly tokenType: string;
  /** true when the token was of this type and belonged to the client (and is now revoked). */
  revoke(client: RevokingClient, token: string): Promise<boolean>;
}

export class RevocationEndpoint {
  constructor(
    private readonly auth: ClientAuthenticator,
    private readonly revokers: readonly TokenRevoker[],
  ) {}

  async revoke(input: ClientCredentialsInput): Promise<void> {
    const { client } = await this.auth.authenticate(input);
    const token = required(input.params, "token");
    const hint = single(input.params, "token_type_hint");
    const ordered = [...this.revokers].sort((a, b) => Number(b.tokenType === hint) - Number(a.tokenType === hint));
    for (const revoker of ordered) if (await revoker.revoke(client, token)) return;
  }
}
