// RFC 7009 revocation of access tokens on behalf of an authenticated client. The endpoint answers
// 200 whatever happens here (§2.2: an invalid or unknown token is not an error), and a client may
// only revoke tokens issued to itself (§2.1): anything else is silently ignored, so the answer
// never tells a client whether someone else's token exists.
import type { AccessTokenVerifier } from "./verified-tokens";
import type { RevocationList } from "./revocation-list";

export interface RevokingClient {
  clientId: string;
  /** null for a dcr/cimd client: its tokens name the workspace of the connection they were issued through. */
  tenantId: string | null;
}

export class TokenRevocationService {
  constructor(
    private readonly verifier: AccessTokenVerifier,
    private readonly revocations: RevocationList,
  ) {}

  /** true when a token of this client was (or already had been) revoked; false when ignored. */
  async revoke(client: RevokingClient, token: string): Promise<boolean> {
    // An expired or forged token needs no revocation: it is already unusable.
    const claims = await this.verifier.verify(token);
    if (!claims || claims.client_id !== client.clientId || (client.tenantId !== null && claims.tenant_id !== client.tenantId)) return false;
    await this.revocations.revoke(claims.jti, new Date(claims.exp * 1000));
    return true;
  }
}
