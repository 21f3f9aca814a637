// A token family: the refresh-token chain started by one authorization code, plus every access
// token minted from it (they carry the family as their `fid` claim). Refresh-token reuse, RFC 7009
// revocation of a refresh token and a replayed code revoke the whole family in ONE transaction:
// the refresh tokens are retired (sign-in module) and the family enters the access-token denylist
// (tokens module RevocationList: persisted, in memory here at once, in other instances as the
// transaction commits, by PostgreSQL NOTIFY). Introspection then answers {"active": false} for the
// family's tokens.
import type { RefreshTokens } from "../signin";
import type { RevocationList } from "../tokens";

export class TokenFamilies {
  constructor(
    private readonly revocations: RevocationList,
    private readonly refreshTokens: RefreshTokens,
  ) {}

  revoke(familyId: string): Promise<void> {
    return this.revocations.revokeFamily(familyId, (tx) => this.refreshTokens.retireFamily(tx, familyId));
  }
}
