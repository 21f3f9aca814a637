// The clients that can act (not revoked), per entry, for the hot paths: the token endpoint
// authenticates client_id/client_secret and introspection re-checks the client's status and
// current allowed scopes without a database query on a hit (docs/decisions/0001-per-entry-caches.md).
// A miss loads one client by its unique client_id; any write to the client's row drops the entry
// (the unit of work, storage/change-tracking.ts), including scope deletion, which removes the
// scope from the clients' allowed_scopes in the deleting transaction.
import type { Db } from "../../storage";
import type { CacheFactory } from "../../storage/cache-factory";
import type { EntryCache } from "../../shared/entry-cache";
import { hashSecret, safeEqual } from "../../shared/crypto";
import type { Clock } from "../../shared/clock";
import type { ClientStatus } from "./schemas";
import { DEFAULT_ID_TOKEN_ALG, ID_TOKEN_ALGS, type IdTokenAlg } from "./registration-metadata";

export interface RegisteredClient {
  /** Row id (internal; the subject id of the client's service-account bindings). */
  id: string;
  /** The public OAuth client_id. */
  clientId: string;
  /** The workspace of a pre-registered client; null for dcr/cimd clients (they reach servers through connections). */
  tenantId: string | null;
  resourceServerId: string | null;
  /** prereg | dcr | cimd */
  registrationMode: string;
  status: ClientStatus;
  /** `none` for public clients (RFC 7591 §2), which have no secret. */
  tokenEndpointAuthMethod: string;
  /** null for public clients (no secret). */
  secretHash: string | null;
  /** The secret a rotation replaced, accepted until previousSecretExpiresAt (epoch ms); null when none. */
  previousSecretHash: string | null;
  previousSecretExpiresAt: number;
  grantTypes: ReadonlySet<string>;
  /** In registration order (the default `scope` of a token request). */
  allowedScopes: readonly string[];
  allowedScopeSet: ReadonlySet<string>;
  tokenLifetime: number;
  /**
   * Where a private_key_jwt client's public keys are (RFC 7523 §2.2; a cimd document's jwks or
   * jwks_uri, cimd/document.ts); null for every other client.
   */
  assertionKeys: AssertionKeys | null;
  /** The algorithm of the client's ID tokens (id_token_signed_response_alg; RS256 when it registered none). */
  idTokenAlg: IdTokenAlg;
  /** Where RP-initiated logout may send the browser back (post_logout_redirect_uris). */
  postLogoutRedirectUris: readonly string[];
}

/** OpenID Connect metadata kept in registrationMetadata (every registration mode). */
function oidcMetadataOf(metadata: unknown): { idTokenAlg: IdTokenAlg; postLogoutRedirectUris: readonly string[] } {
  const m = (typeof metadata === "object" && metadata !== null ? metadata : {}) as { id_token_signed_response_alg?: unknown; post_logout_redirect_uris?: unknown };
  const alg = ID_TOKEN_ALGS.includes(m.id_token_signed_response_alg as IdTokenAlg) ? (m.id_token_signed_response_alg as IdTokenAlg) : DEFAULT_ID_TOKEN_ALG;
  const uris = Array.isArray(m.post_logout_redirect_uris) ? (m.post_logout_redirect_uris as string[]) : [];
  return { idTokenAlg: alg, postLogoutRedirectUris: Object.freeze([...uris]) };
}

export type AssertionKeys = { jwks: { keys: Array<Record<string, unknown>> } } | { jwksUri: string };

/** What a client secret is checked against: the stored hashes, and the end of a rotated-out one's grace. */
export type StoredSecrets = Pick<RegisteredClient, "secretHash" | "previousSecretHash" | "previousSecretExpiresAt">;

/** The key source stored with a private_key_jwt client's metadata (cimd/cimd-clients.ts). */
function assertionKeysOf(method: string, metadata: unknown): AssertionKeys | null {
  if (method !== "private_key_jwt" || typeof metadata !== "object" || metadata === null) return null;
  const m = metadata as { jwks?: { keys: Array<Record<string, unknown>> }; jwks_uri?: string };
  if (m.jwks !== undefined) return { jwks: m.jwks };
  if (typeof m.jwks_uri === "string") return { jwksUri: m.jwks_uri };
  return null;
}

/** The allowed-scope set of a connection client: bounded by the user's bindings alone. */
class EveryScope extends Set<string> {
  override has(_scope: string): boolean {
    return true;
  }
}
const EVERY_SCOPE: ReadonlySet<string> = new EveryScope();

// Same length as a real hash, so an unknown client_id costs the same HMAC + compare.
const DUMMY_HASH = "x".repeat(43);

export class ClientRegistry {
  private readonly cache: EntryCache<RegisteredClient>;

  constructor(
    private readonly db: Db,
    private readonly pepper: Buffer,
    caches: CacheFactory,
  ) {
    this.cache = caches.create<RegisteredClient>("client", async (clientId) => {
      const r = await db.client.findUnique({
        where: { clientId },
        select: {
          id: true,
          clientId: true,
          tenantId: true,
          resourceServerId: true,
          registrationMode: true,
          status: true,
          tokenEndpointAuthMethod: true,
          secretHash: true,
          previousSecretHash: true,
          previousSecretExpiresAt: true,
          grantTypes: true,
          allowedScopes: true,
          tokenLifetime: true,
          registrationMetadata: true,
        },
      });
      if (!r || r.status === "revoked") return null;
      const allowed = r.allowedScopes as string[];
      return {
        id: r.id,
        clientId: r.clientId,
        tenantId: r.tenantId,
        resourceServerId: r.resourceServerId,
        registrationMode: r.registrationMode,
        status: r.status as ClientStatus,
        tokenEndpointAuthMethod: r.tokenEndpointAuthMethod,
        secretHash: r.secretHash,
        previousSecretHash: r.previousSecretHash,
        previousSecretExpiresAt: r.previousSecretExpiresAt?.getTime() ?? 0,
        grantTypes: new Set(r.grantTypes as string[]),
        allowedScopes: Object.freeze([...allowed]),
        // A dcr/cimd client has no allowed-scopes list of its own: on each server it may get the
        // server's scopes the user holds (DESIGN "Clients and connections"), so nothing narrows here.
        allowedScopeSet: r.tenantId === null ? EVERY_SCOPE : new Set(allowed),
        tokenLifetime: r.tokenLifetime,
        assertionKeys: assertionKeysOf(r.tokenEndpointAuthMethod, r.registrationMetadata),
        ...oidcMetadataOf(r.registrationMetadata),
      };
    });
  }

  /** The client from memory: a value, null (unknown or revoked), or undefined when not cached. */
  peek(clientId: string): RegisteredClient | null | undefined {
    return this.cache.peek(clientId);
  }

  /** The client (null when unknown or revoked); synchronous on a hit. */
  get(clientId: string): RegisteredClient | null | Promise<RegisteredClient | null> {
    return this.cache.get(clientId);
  }

  /** The client read from the database now (one indexed query), replacing what the cache held. */
  load(clientId: string): Promise<RegisteredClient | null> {
    return this.cache.load(clientId);
  }

  /**
   * The secret hashes stored now (null when unknown or revoked): one indexed query reading a few
   * short columns, about what looking up an id that does not exist costs (oauth/client-auth.ts
   * reads this to make a refusal cost the same whether the client_id exists or not).
   */
  async storedSecrets(clientId: string): Promise<StoredSecrets | null> {
    const r = await this.db.client.findUnique({ where: { clientId }, select: { status: true, secretHash: true, previousSecretHash: true, previousSecretExpiresAt: true } });
    if (!r || r.status === "revoked") return null;
    return { secretHash: r.secretHash, previousSecretHash: r.previousSecretHash, previousSecretExpiresAt: r.previousSecretExpiresAt?.getTime() ?? 0 };
  }

  /**
   * client_id + client_secret check in constant time: the stored hash the secret matched (the
   * current one, or the rotated-out one while its grace lasts by `clock`), undefined when it fails.
   * Both hashes are always compared, and an unknown id does the same work as a known one, so
   * response time reveals neither which ids exist nor which secret matched. Status is not checked
   * here (the caller decides what a pending client may do).
   */
  verifySecret(client: StoredSecrets | null, secret: string, clock: Clock): string | undefined {
    const presented = hashSecret(this.pepper, secret);
    const current = safeEqual(presented, client?.secretHash ?? DUMMY_HASH);
    const previous = safeEqual(presented, client?.previousSecretHash ?? DUMMY_HASH);
    if (current && client?.secretHash) return client.secretHash;
    if (previous && client?.previousSecretHash && this.inGrace(client, clock)) return client.previousSecretHash;
    return undefined;
  }

  /**
   * Whether a stored hash a secret verified against earlier is still accepted now: the current
   * one, or the rotated-out one until its grace ends (no database query: the entry holds both; the
   * clock is read only for the rotated-out one, so the common case costs one comparison).
   */
  accepts(client: RegisteredClient, verifiedHash: string, clock: Clock): boolean {
    if (verifiedHash === client.secretHash) return true;
    return verifiedHash === client.previousSecretHash && this.inGrace(client, clock);
  }

  /** The grace of a rotated-out secret ends at previousSecretExpiresAt, exclusive. */
  private inGrace(client: StoredSecrets, clock: Clock): boolean {
    return clock.now().getTime() < client.previousSecretExpiresAt;
  }

  get size(): number {
    return this.cache.size;
  }
}
