// In-memory view of every client that can still act (not revoked), for the hot paths: the token
// endpoint authenticates client_id/client_secret and introspection re-checks the client's status
// and current allowed scopes without a database query (notes/performance.md). Reloaded by the
// write that changes a client (in-process at once through notifyLocal, other instances through the
// CacheVersions poll of "clients").
//
// A client's effective allowed scopes are its configured ones that still exist on its server: when
// a scope is deleted (the catalog bumps "access" in that transaction), new tokens stop carrying it
// and introspection stops reporting it at once, without waiting for anyone to edit the client.
import type { Db } from "../../storage";
import type { CacheVersions } from "../../storage";
import { verifySecret } from "../../shared/crypto";
import { coalescedReload } from "../../shared/coalesced-reload";
import type { ClientStatus } from "./schemas";

export interface RegisteredClient {
  /** Row id (internal). */
  id: string;
  /** The public OAuth client_id. */
  clientId: string;
  tenantId: string;
  resourceServerId: string | null;
  status: ClientStatus;
  /** null for public clients (no secret). */
  secretHash: string | null;
  grantTypes: ReadonlySet<string>;
  /** In registration order (the default `scope` of a token request); only scopes that still exist. */
  allowedScopes: readonly string[];
  allowedScopeSet: ReadonlySet<string>;
  tokenLifetime: number;
}

// Same length as a real hash, so an unknown client_id costs the same HMAC + compare.
const DUMMY_HASH = "x".repeat(43);

export class ClientRegistry {
  private byClientId = new Map<string, RegisteredClient>();

  constructor(
    private readonly db: Db,
    private readonly pepper: Buffer,
    versions: CacheVersions,
  ) {
    versions.on("clients", () => this.load());
    versions.on("access", () => this.load()); // scope deletion (see above)
  }

  /** Reloads from the database (coalesced: see shared/coalesced-reload.ts). */
  readonly load = coalescedReload(() => this.loadNow());

  private async loadNow(): Promise<void> {
    const rows = await this.db.client.findMany({
      where: { status: { not: "revoked" } },
      select: {
        id: true,
        clientId: true,
        tenantId: true,
        resourceServerId: true,
        status: true,
        secretHash: true,
        grantTypes: true,
        allowedScopes: true,
        tokenLifetime: true,
        resourceServer: { select: { scopes: { select: { key: true } } } },
      },
    });
    const map = new Map<string, RegisteredClient>();
    for (const r of rows) {
      const existing = r.resourceServer ? new Set(r.resourceServer.scopes.map((s) => s.key)) : null;
      const allowed = (r.allowedScopes as string[]).filter((s) => !existing || existing.has(s));
      map.set(r.clientId, {
        id: r.id,
        clientId: r.clientId,
        tenantId: r.tenantId,
        resourceServerId: r.resourceServerId,
        status: r.status as ClientStatus,
        secretHash: r.secretHash,
        grantTypes: new Set(r.grantTypes as string[]),
        allowedScopes: Object.freeze([...allowed]),
        allowedScopeSet: new Set(allowed),
        tokenLifetime: r.tokenLifetime,
      });
    }
    this.byClientId = map;
  }

  /** The client (revoked clients are absent). */
  get(clientId: string): RegisteredClient | undefined {
    return this.byClientId.get(clientId);
  }

  /**
   * client_id + client_secret check in constant time; undefined when it fails. An unknown id does
   * the same work as a known one, so response time does not reveal which ids exist. Status is not
   * checked here (the caller decides what a pending client may do).
   */
  verifySecret(clientId: string, secret: string): RegisteredClient | undefined {
    const c = this.byClientId.get(clientId);
    const ok = verifySecret(this.pepper, secret, c?.secretHash ?? DUMMY_HASH);
    return ok && c?.secretHash ? c : undefined;
  }

  get size(): number {
    return this.byClientId.size;
  }
}
