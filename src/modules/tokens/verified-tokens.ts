// Verified-access-token cache for introspection and revocation. An ES256 verify costs ~120 µs,
// more than the rest of an introspection request together
// (docs/decisions/0006-hot-paths-answer-from-memory.md); resource servers introspect the same
// token again and again, so a token that verified once is remembered,
// keyed by its exact string, until its `exp`. The signature check's inputs are fixed for the
// token's lifetime except one: whether its key is still published (a key that signed a token
// stays published until that token expired, key-schedule.ts, but a token claiming a longer life
// must not outlive its key), so a hit re-checks the key's publication — a map lookup. Everything
// else that can change sooner — revocation, the client's status and scopes, the server — is
// re-checked on every request by the caller.
// Only successes are cached, so garbage tokens cannot grow the map; the map is bounded.
import { decodeProtectedHeader } from "jose";
import type { ChangeBus } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { AccessTokenClaims, JwtService } from "./jwt";
import type { KeyStore } from "./key-store";

interface Entry {
  claims: AccessTokenClaims;
  expMs: number;
  kid: string;
}

export const VERIFIED_TOKEN_CACHE_SIZE = 20_000;

export class AccessTokenVerifier {
  private cache = new Map<string, Entry>();

  constructor(
    private readonly jwt: JwtService,
    private readonly keys: KeyStore,
    private readonly clock: Clock,
    bus: ChangeBus,
    private readonly maxEntries = VERIFIED_TOKEN_CACHE_SIZE,
  ) {
    // A key removed or replaced out of schedule (e.g. after a compromise) must stop verifying at once.
    const clear = () => this.cache.clear();
    bus.subscribe("keys", { invalidate: clear, clear });
    bus.onReset(clear);
  }

  /**
   * Synchronous answer from the cache: the claims of a token verified before and still valid,
   * null for a cached token that has expired or whose key is no longer published, undefined when
   * the token is not cached (call verify()). Lets the hot path skip promise hops on a hit.
   */
  peek(token: string): AccessTokenClaims | null | undefined {
    const hit = this.cache.get(token);
    if (!hit) return undefined;
    if (hit.expMs > this.clock.now().getTime() && this.keys.verificationKey(hit.kid)) return hit.claims;
    this.cache.delete(token);
    return null;
  }

  /** The token's claims when it is a valid, unexpired access token of ours; null otherwise. */
  async verify(token: string): Promise<AccessTokenClaims | null> {
    const cached = this.peek(token);
    if (cached !== undefined) return cached;
    const claims = await this.jwt.verifyAccessToken(token);
    if (!claims) return null;
    // verifyAccessToken succeeded, so the header decodes and names a published key.
    this.remember(token, { claims, expMs: claims.exp * 1000, kid: decodeProtectedHeader(token).kid! });
    return claims;
  }

  private remember(token: string, entry: Entry): void {
    if (this.cache.size >= this.maxEntries) {
      // Drop the oldest tenth (Map iterates in insertion order): amortised O(1) per insert.
      let drop = Math.ceil(this.maxEntries / 10);
      for (const key of this.cache.keys()) {
        this.cache.delete(key);
        if (--drop === 0) break;
      }
    }
    this.cache.set(token, entry);
  }

  get size(): number {
    return this.cache.size;
  }
}
