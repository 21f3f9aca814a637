// In-memory view of every live (not deleted) resource server, for the hot paths: the token
// endpoint resolves `resource` to a server, and introspection/runtime endpoints authenticate
// `rs_id:introspection_secret` without a database query (notes/performance.md). Reloaded by the
// write that changes a server (in-process at once, other instances through CacheVersions).
import type { Db } from "../../storage";
import type { CacheVersions } from "../../storage";
import { verifySecret } from "../../shared/crypto";
import { coalescedReload } from "../../shared/coalesced-reload";
import { canonicalResource } from "./resource-url";

export interface RegisteredServer {
  id: string;
  tenantId: string;
  resourceUrl: string;
  secretHash: string;
  state: string;
  registrationModes: string[];
}

export class ResourceServerRegistry {
  private byId = new Map<string, RegisteredServer>();
  private byResource = new Map<string, RegisteredServer[]>();

  constructor(
    private readonly db: Db,
    private readonly pepper: Buffer,
    versions: CacheVersions,
  ) {
    versions.on("resource_servers", () => this.load());
  }

  /** Reloads every live server (coalesced: see shared/coalesced-reload.ts). */
  readonly load = coalescedReload(() => this.loadNow());

  private async loadNow(): Promise<void> {
    const rows = await this.db.resourceServer.findMany({
      where: { deletedAt: null },
      select: { id: true, tenantId: true, resourceUrl: true, introspectionSecretHash: true, state: true, registrationModes: true },
    });
    const byId = new Map<string, RegisteredServer>();
    const byResource = new Map<string, RegisteredServer[]>();
    for (const r of rows) {
      const entry: RegisteredServer = {
        id: r.id,
        tenantId: r.tenantId,
        resourceUrl: r.resourceUrl,
        secretHash: r.introspectionSecretHash,
        state: r.state,
        registrationModes: r.registrationModes as string[],
      };
      byId.set(r.id, entry);
      const key = canonicalResource(r.resourceUrl) ?? r.resourceUrl;
      byResource.set(key, [...(byResource.get(key) ?? []), entry]);
    }
    this.byId = byId;
    this.byResource = byResource;
  }

  get(id: string): RegisteredServer | undefined {
    return this.byId.get(id);
  }

  /**
   * The workspace's live server whose resource_url is `resource` (`X` and `X/` match alike).
   * resource_url is unique per workspace; two workspaces may protect the same URL.
   */
  findByResource(tenantId: string, resource: string): RegisteredServer | undefined {
    const key = canonicalResource(resource);
    return key ? this.byResource.get(key)?.find((s) => s.tenantId === tenantId) : undefined;
  }

  /** Basic `rs_id:introspection_secret` check, constant time; undefined when it fails. */
  authenticate(rsId: string, secret: string): RegisteredServer | undefined {
    const rs = this.byId.get(rsId);
    if (!rs) {
      verifySecret(this.pepper, secret, "x".repeat(43)); // same work for unknown ids
      return undefined;
    }
    return verifySecret(this.pepper, secret, rs.secretHash) ? rs : undefined;
  }
}
