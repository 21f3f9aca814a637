// Registration, reading, update, soft delete and secret rotation of resource servers. Every query
// is scoped by the actor's workspace: another workspace's id is indistinguishable from an unknown one.
import { recordAuditEvent, type Db, type DbOrTx } from "../../storage";
import { AUDIT_ACTIONS } from "../audit";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { hashSecret } from "../../shared/crypto";
import { conflict, notFound } from "../../shared/errors";
import { type Actor, assertCanRead, assertCanWrite } from "../../shared/actor";
import { canonicalResource, joinResourceUrl } from "../../shared/resource-url";
import { FIRST_PAGE, type Page, type PageRequest } from "../../shared/pagination";
import { RESOURCE_SERVER_LIST, type CreateResourceServerInput, type UpdateResourceServerInput } from "./schemas";
import { endpointsFor, toResourceServerView, type ResourceServerView } from "./views";

/** Introspection secrets are 256-bit random strings, shown once, stored as a peppered hash. */
const SECRET_BYTES = 32;

export interface RotatedSecret {
  id: string;
  introspection_secret: string;
  rotated_at: string;
}

/** Hook for changes that happen in the same transaction as a rotation (drift events). */
export type RotationHook = (tx: DbOrTx, actor: Actor, server: { id: string; tenantId: string; state: string }, rotatedAt: Date) => Promise<void>;

export class ResourceServerService {
  private rotationHooks: RotationHook[] = [];

  constructor(
    private readonly db: Db,
    private readonly pepper: Buffer,
    private readonly publicUrl: string,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly dbKind: "sqlite" | "postgresql",
  ) {}

  onSecretRotated(hook: RotationHook): void {
    this.rotationHooks.push(hook);
  }

/**
 * Serialises the writers of one server's rows (tools, scopes, mappings, access policy, manifest,
 * scan results) on PostgreSQL: called as the first statement of the write transaction, it takes a
 * row lock on the server's ResourceServer row, so a second writer waits until the first commits
 * and (READ COMMITTED: each statement sees what was committed before it started) then reads what
 * the first wrote. Read-then-write sequences (bulk replace, create-if-missing, an upsert Prisma
 * emulates with SELECT + INSERT, a drift event for a change seen in the prior row) therefore never
 * interleave, in one instance or several: no unique violation (500) and no event recorded twice.
 * FOR NO KEY UPDATE conflicts with itself and with every UPDATE of the row (the scan's claim and
 * record, setup, rotation, deletion) but not with the foreign-key checks of inserts that merely
 * reference the server (tools, clients, role grants). It is a read, not a write: the unit of work
 * is not bypassed. SQLite runs one transaction at a time already (the adapter queues them).
 */
  async lockForWrite(tx: DbOrTx, tenantId: string, rsId: string): Promise<void> {
    if (this.dbKind === "postgresql") await tx.$queryRaw`SELECT 1 FROM "ResourceServer" WHERE "id" = ${rsId} AND "tenantId" = ${tenantId} FOR NO KEY UPDATE`;
  }

  /** The live server of the actor's workspace, or 404. */
  async findLive(tx: DbOrTx, actor: Actor, id: string) {
    const rs = await tx.resourceServer.findFirst({ where: { id, tenantId: actor.tenantId, deletedAt: null } });
    if (!rs) throw notFound("resource server");
    return rs;
  }

  private async assertResourceUrlFree(tx: DbOrTx, tenantId: string, resourceUrl: string, exceptId?: string): Promise<void> {
    const key = canonicalResource(resourceUrl);
    const live = await tx.resourceServer.findMany({ where: { tenantId, deletedAt: null }, select: { id: true, resourceUrl: true } });
    if (live.some((r) => r.id !== exceptId && canonicalResource(r.resourceUrl) === key)) {
      throw conflict("a resource server with this resource_url already exists in the workspace");
    }
  }

  async create(actor: Actor, input: CreateResourceServerInput) {
    assertCanWrite(actor);
    const secret = this.ids.token(SECRET_BYTES);
    const resourceUrl = joinResourceUrl(input.public_base_url, input.protected_base_path);
    const now = this.clock.now();
    const rs = await this.db.$transaction(async (tx) => {
      await this.assertResourceUrlFree(tx, actor.tenantId, resourceUrl);
      const created = await tx.resourceServer.create({
        data: {
          id: this.ids.uuid(),
          tenantId: actor.tenantId,
          name: input.name,
          publicBaseUrl: input.public_base_url,
          protectedBasePath: input.protected_base_path,
          resourceUrl,
          scopesSupported: input.scopes_supported,
          registrationModes: input.registration_modes,
          validationMode: "auto",
          introspectionSecretHash: hashSecret(this.pepper, secret),
          state: "pending_scan",
          createdAt: now,
          updatedAt: now,
        },
      });
      // Scopes named at registration become scope records (name = id until renamed).
      if (input.scopes_supported.length > 0) {
        await tx.scope.createMany({
          data: input.scopes_supported.map((key) => ({ id: this.ids.uuid(), tenantId: actor.tenantId, resourceServerId: created.id, key, name: key, createdAt: now })),
        });
      }
      return created;
    });
    // The 201 body has exactly the spec's fields; the secret appears here and in rotation only.
    return {
      id: rs.id,
      introspection_secret: secret,
      ...endpointsFor(this.publicUrl, rs),
      validation_mode: rs.validationMode,
      scopes_supported: rs.scopesSupported as string[],
      status: rs.state,
    };
  }

  /** One page of the workspace's live resource servers, oldest first (RESOURCE_SERVER_LIST). */
  async list(actor: Actor, page: PageRequest = FIRST_PAGE): Promise<Page<ResourceServerView>> {
    assertCanRead(actor);
    const rows = await this.db.resourceServer.findMany({
      where: RESOURCE_SERVER_LIST.where({ tenantId: actor.tenantId, deletedAt: null }, page.cursor),
      orderBy: RESOURCE_SERVER_LIST.orderBy,
      take: page.limit + 1,
    });
    return RESOURCE_SERVER_LIST.page(rows, page.limit, (r) => toResourceServerView(this.publicUrl, r));
  }

  async get(actor: Actor, id: string): Promise<ResourceServerView> {
    assertCanRead(actor);
    return toResourceServerView(this.publicUrl, await this.findLive(this.db, actor, id));
  }

  async update(actor: Actor, id: string, input: UpdateResourceServerInput): Promise<ResourceServerView> {
    assertCanWrite(actor);
    const rs = await this.db.$transaction(async (tx) => {
      const current = await this.findLive(tx, actor, id);
      const publicBaseUrl = input.public_base_url ?? current.publicBaseUrl;
      const protectedBasePath = input.protected_base_path ?? current.protectedBasePath;
      const resourceUrl = joinResourceUrl(publicBaseUrl, protectedBasePath);
      if (resourceUrl !== current.resourceUrl) await this.assertResourceUrlFree(tx, actor.tenantId, resourceUrl, id);
      const updated = await tx.resourceServer.update({
        where: { id },
        data: {
          name: input.name ?? undefined,
          publicBaseUrl,
          protectedBasePath,
          resourceUrl,
          registrationModes: input.registration_modes ?? undefined,
          updatedAt: this.clock.now(),
        },
      });
      return updated;
    });
    return toResourceServerView(this.publicUrl, rs);
  }

  /** Soft delete: the row is kept, the id answers 404, and its tokens stop introspecting active. */
  async remove(actor: Actor, id: string): Promise<void> {
    assertCanWrite(actor);
    await this.db.$transaction(async (tx) => {
      await this.findLive(tx, actor, id);
      await tx.resourceServer.update({ where: { id }, data: { deletedAt: this.clock.now() } });
      await recordAuditEvent(tx, { action: AUDIT_ACTIONS.resourceServerDeleted, target: { type: "resource_server", id } });
    });
  }

  /** New secret returned once; the old one is refused from the moment this returns. */
  async rotateSecret(actor: Actor, id: string): Promise<RotatedSecret> {
    assertCanWrite(actor);
    const secret = this.ids.token(SECRET_BYTES);
    const rotatedAt = this.clock.now();
    await this.db.$transaction(async (tx) => {
      const rs = await this.findLive(tx, actor, id);
      await tx.resourceServer.update({ where: { id }, data: { introspectionSecretHash: hashSecret(this.pepper, secret), updatedAt: rotatedAt } });
      await recordAuditEvent(tx, { action: AUDIT_ACTIONS.introspectionSecretRotated, target: { type: "resource_server", id } });
      for (const hook of this.rotationHooks) await hook(tx, actor, rs, rotatedAt);
    });
    return { id, introspection_secret: secret, rotated_at: rotatedAt.toISOString() };
  }
}
