// Live (not deleted) resource servers, per entry, for the hot paths: the token endpoint resolves
// `resource` to a server, and introspection/runtime endpoints authenticate
// `rs_id:introspection_secret` without a database query on a hit
// (docs/decisions/0001-per-entry-caches.md). Two caches:
//   server    "<id>"                      -> the server, or null (unknown or deleted)
//   resource  "<tenant>:<canonical url>"  -> the id of the workspace's live server with that resource_url
// Any write to a server's row drops both of its entries (storage/change-tracking.ts). A server's
// resource_url can change (PATCH public_base_url), and the entry under its OLD url is not named by
// that write, so a resource hit is re-validated against the server entry before it is trusted.
import type { Db } from "../../storage";
import type { CacheFactory } from "../../storage/cache-factory";
import type { EntryCache, MaybePromise } from "../../shared/entry-cache";
import { verifySecret } from "../../shared/crypto";
import { canonicalResource } from "../../shared/resource-url";

export interface RegisteredServer {
  id: string;
  tenantId: string;
  resourceUrl: string;
  secretHash: string;
  state: string;
  registrationModes: string[];
}

export class ResourceServerRegistry {
  private readonly byId: EntryCache<RegisteredServer>;
  private readonly byResource: EntryCache<string>;

  constructor(
    private readonly db: Db,
    private readonly pepper: Buffer,
    caches: CacheFactory,
  ) {
    this.byId = caches.create<RegisteredServer>("server", async (id) => {
      const r = await db.resourceServer.findUnique({
        where: { id },
        select: { id: true, tenantId: true, resourceUrl: true, introspectionSecretHash: true, state: true, registrationModes: true, deletedAt: true },
      });
      if (!r || r.deletedAt) return null;
      return { id: r.id, tenantId: r.tenantId, resourceUrl: r.resourceUrl, secretHash: r.introspectionSecretHash, state: r.state, registrationModes: r.registrationModes as string[] };
    });
    this.byResource = caches.create<string>("resource", async (key) => {
      const at = key.indexOf(":");
      const tenantId = key.slice(0, at);
      const canonical = key.slice(at + 1);
      // resource_url is stored as joined (no trailing slash but for an empty path): ask for both spellings.
      const rows = await db.resourceServer.findMany({
        where: { tenantId, deletedAt: null, resourceUrl: { in: [canonical, `${canonical}/`] } },
        select: { id: true, resourceUrl: true },
      });
      return rows.find((r) => canonicalResource(r.resourceUrl) === canonical)?.id ?? null;
    });
  }

  /** The live server from memory: a value, null (unknown or deleted), or undefined when not cached. */
  peek(id: string): RegisteredServer | null | undefined {
    return this.byId.peek(id);
  }

  /** The live server (null when unknown or deleted); synchronous on a hit. */
  get(id: string): MaybePromise<RegisteredServer | null> {
    return this.byId.get(id);
  }

  /**
   * The workspace's live server whose resource_url is `resource` (`X` and `X/` match alike).
   * resource_url is unique per workspace; two workspaces may protect the same URL.
   */
  async findByResource(tenantId: string, resource: string): Promise<RegisteredServer | null> {
    const canonical = canonicalResource(resource);
    if (!canonical) return null;
    const key = `${tenantId}:${canonical}`;
    for (let attempt = 0; attempt < 2; attempt++) {
      const id = await this.byResource.get(key);
      if (!id) return null;
      const server = await this.byId.get(id);
      if (server && server.tenantId === tenantId && canonicalResource(server.resourceUrl) === canonical) return server;
      this.byResource.invalidate(key); // the server moved to another URL or was deleted: look again
    }
    return null;
  }

  /**
   * Every live server, in any workspace, whose resource_url is `resource`: how the `resource` of a
   * dcr/cimd client's authorization request (a client of no workspace) finds its server. Once per
   * sign-in, not a hot path: one query on the resourceUrl index, then the server entries.
   */
  async findAllByResource(resource: string): Promise<RegisteredServer[]> {
    const canonical = canonicalResource(resource);
    if (!canonical) return [];
    const rows = await this.db.resourceServer.findMany({
      where: { deletedAt: null, resourceUrl: { in: [canonical, `${canonical}/`] } },
      select: { id: true },
      take: 10,
    });
    const servers = await Promise.all(rows.map((r) => this.byId.get(r.id)));
    return servers.filter((s): s is RegisteredServer => s !== null && canonicalResource(s.resourceUrl) === canonical);
  }

  /** Basic `rs_id:introspection_secret` check, constant time; undefined when it fails. */
  verifySecret(rs: RegisteredServer | null, secret: string): RegisteredServer | undefined {
    const ok = verifySecret(this.pepper, secret, rs?.secretHash ?? "x".repeat(43)); // same work for unknown ids
    return ok && rs ? rs : undefined;
  }
}
