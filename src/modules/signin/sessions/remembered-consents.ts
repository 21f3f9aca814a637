// Remembered consent: when a user allows a client on a resource server, the scopes they allowed
// are kept per (user, client, server). A later authorization asking for no more than those skips
// the consent page (unless prompt=consent); asking for more shows it again. The user forgets a
// consent at any time (DELETE /svc/uflow/consents/:consent_id): the next authorization of that
// client asks again. Tokens already issued are not touched (revocation governs them).
import type { Db } from "../../../storage";
import type { Clock } from "../../../shared/clock";
import type { IdGenerator } from "../../../shared/ids";

export interface ConsentView {
  id: string;
  client_id: string;
  resource_server_id: string;
  scopes: string[];
  created_at: string;
  updated_at: string;
}

export class RememberedConsents {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /** The scopes the user allowed this client on this server, or null when never (or forgotten). */
  async allowed(userId: string, clientId: string, resourceServerId: string): Promise<ReadonlySet<string> | null> {
    const row = await this.db.rememberedConsent.findUnique({ where: { userId_clientId_resourceServerId: { userId, clientId, resourceServerId } } });
    return row ? new Set(row.scopes as string[]) : null;
  }

  /** Records an Allow: the union with what was allowed before (allowing less never forgets more). */
  async remember(input: { tenantId: string; userId: string; clientId: string; resourceServerId: string; scopes: readonly string[] }): Promise<void> {
    const now = this.clock.now();
    const key = { userId: input.userId, clientId: input.clientId, resourceServerId: input.resourceServerId };
    await this.db.$transaction(async (tx) => {
      const current = await tx.rememberedConsent.findUnique({ where: { userId_clientId_resourceServerId: key } });
      const scopes = [...new Set([...((current?.scopes as string[]) ?? []), ...input.scopes])].sort();
      await tx.rememberedConsent.upsert({
        where: { userId_clientId_resourceServerId: key },
        create: { id: this.ids.uuid(), tenantId: input.tenantId, ...key, scopes, createdAt: now, updatedAt: now },
        update: { scopes, updatedAt: now },
      });
    });
  }

  /** A user's remembered consents (their own: a few per client they use), newest first. */
  async list(tenantId: string, userId: string): Promise<ConsentView[]> {
    const rows = await this.db.rememberedConsent.findMany({ where: { tenantId, userId }, orderBy: [{ updatedAt: "desc" }, { id: "asc" }], take: 1000 });
    return rows.map((r) => ({
      id: r.id,
      client_id: r.clientId,
      resource_server_id: r.resourceServerId,
      scopes: r.scopes as string[],
      created_at: r.createdAt.toISOString(),
      updated_at: r.updatedAt.toISOString(),
    }));
  }

  /** Forgets one of the user's consents; false when it is not theirs (or gone). */
  async forget(tenantId: string, userId: string, id: string): Promise<boolean> {
    return (await this.db.rememberedConsent.deleteMany({ where: { id, tenantId, userId } })).count > 0;
  }
}
