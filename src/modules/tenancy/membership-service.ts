// Workspace memberships (spec "Tenant membership" and its state table). A membership's status
// decides whether its user may hold any scope (only `active` may); every write drops that member's
// cached access facts after commit, through the unit of work
// (docs/decisions/0001-per-entry-caches.md).
//
// Guards beyond the spec, as a workspace owner would expect:
// - Only an owner may create an owner membership, promote to owner, or change or remove an owner's
//   membership (an admin cannot lift themselves or lock the owners out).
// - The last active owner can be neither demoted, made non-active, nor removed (409): a workspace
//   without an owner could never be administered again.
import type { Db, DbOrTx, Tx } from "../../storage";
import { isUniqueViolation } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { badRequest, conflict, forbidden, notFound } from "../../shared/errors";
import { type Actor, assertCanRead, assertCanWrite, assertSameTenant } from "../../shared/actor";
import type { Page } from "../../shared/pagination";
import { MEMBERSHIP_LIST, type CreateMembershipInput, type ListMembershipsFilter, type UpdateMembershipInput } from "./membership-schemas";
import { toMemberView, type MemberView } from "./views";

const withUser = { user: { select: { email: true, username: true } } } as const;

export class MembershipService {
  private readonly removedHooks: Array<(tx: Tx, tenantId: string, userId: string) => Promise<unknown>> = [];
  private readonly deactivatedHooks: Array<(tx: Tx, tenantId: string, userId: string) => Promise<unknown>> = [];

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly dbKind: "sqlite" | "postgresql",
  ) {}

  /** One page of the workspace's memberships, oldest first (MEMBERSHIP_LIST). */
  async list(actor: Actor, tenantId: string, filter: ListMembershipsFilter): Promise<Page<MemberView>> {
    assertSameTenant(actor, tenantId);
    assertCanRead(actor);
    const rows = await this.db.membership.findMany({
      where: MEMBERSHIP_LIST.where({ tenantId, status: filter.status, membershipType: filter.type }, filter.cursor),
      include: withUser,
      orderBy: MEMBERSHIP_LIST.orderBy,
      take: filter.limit + 1,
    });
    return MEMBERSHIP_LIST.page(rows, filter.limit, toMemberView);
  }

  async get(actor: Actor, tenantId: string, userId: string): Promise<MemberView> {
    assertSameTenant(actor, tenantId);
    assertCanRead(actor);
    return toMemberView(await this.find(this.db, tenantId, userId));
  }

  /** Idempotent on (tenant, user): an existing membership is returned unchanged with created=false. */
  async create(actor: Actor, tenantId: string, input: CreateMembershipInput): Promise<{ membership: MemberView; created: boolean }> {
    assertSameTenant(actor, tenantId);
    assertCanWrite(actor);
    const existing = () => this.db.membership.findUnique({ where: { tenantId_userId: { tenantId, userId: input.user_id } }, include: withUser });
    const found = await existing();
    if (found) return { membership: toMemberView(found), created: false };
    if (input.membership_type === "owner") this.assertOwner(actor, "only an owner may add an owner");
    const now = this.clock.now();
    try {
      const row = await this.db.$transaction(async (tx) => {
        // Only this workspace's own users can join it (users are private to one workspace, decision 0017).
        const user = await tx.user.findUnique({ where: { id: input.user_id, tenantId }, select: { id: true } });
        if (!user) throw badRequest("user_id: no such user");
        const created = await tx.membership.create({
          data: {
            id: this.ids.uuid(),
            tenantId,
            userId: input.user_id,
            membershipType: input.membership_type,
            status: input.status,
            source: input.source,
            externalId: input.external_id ?? null,
            suspendedAt: input.status === "suspended" ? now : null,
            createdAt: now,
            updatedAt: now,
          },
          include: withUser,
        });
        return created;
      });
      return { membership: toMemberView(row), created: true };
    } catch (e) {
      // A concurrent create of the same membership won the race: answer as for an existing one.
      if (!isUniqueViolation(e)) throw e;
      return { membership: toMemberView((await existing())!), created: false };
    }
  }

  async update(actor: Actor, tenantId: string, userId: string, patch: UpdateMembershipInput): Promise<MemberView> {
    assertSameTenant(actor, tenantId);
    assertCanWrite(actor);
    const row = await this.db.$transaction(async (tx) => {
      await this.lockOwners(tx, tenantId);
      const current = await this.find(tx, tenantId, userId);
      const type = patch.membership_type ?? current.membershipType;
      const status = patch.status ?? current.status;
      if (current.membershipType === "owner" || type === "owner") this.assertOwner(actor, "only an owner may change an owner's membership or make someone an owner");
      if (current.membershipType === "owner" && current.status === "active" && !(type === "owner" && status === "active")) {
        await this.assertAnotherActiveOwner(tx, tenantId, userId);
      }
      // suspended_at is the time of the current suspension: set when the status becomes suspended, cleared when it leaves it.
      const suspendedAt = status !== "suspended" ? null : current.status === "suspended" ? current.suspendedAt : this.clock.now();
      const updated = await tx.membership.update({
        where: { id: current.id },
        data: { membershipType: type, status, externalId: patch.external_id, suspendedAt, updatedAt: this.clock.now() },
        include: withUser,
      });
      // Leaving `active` (suspended, left) ends what the member holds elsewhere (browser sessions).
      if (current.status === "active" && status !== "active") for (const hook of this.deactivatedHooks) await hook(tx, tenantId, userId);
      return updated;
    });
    return toMemberView(row);
  }

  /**
   * Removes the user from the workspace: the membership and, in the same transaction, the user's
   * group memberships, direct role bindings and end-user state here, so re-adding the user later
   * does not silently bring old access back.
   */
  async remove(actor: Actor, tenantId: string, userId: string): Promise<void> {
    assertSameTenant(actor, tenantId);
    assertCanWrite(actor);
    await this.db.$transaction(async (tx) => {
      await this.lockOwners(tx, tenantId);
      const current = await this.find(tx, tenantId, userId);
      if (current.membershipType === "owner") {
        this.assertOwner(actor, "only an owner may remove an owner");
        if (current.status === "active") await this.assertAnotherActiveOwner(tx, tenantId, userId);
      }
      // Group memberships and role bindings belong to rbac: it removes them through the hooks wired in app.ts.
      for (const hook of this.removedHooks) await hook(tx, tenantId, userId);
      await tx.endUserState.deleteMany({ where: { tenantId, userId } });
      await tx.membership.delete({ where: { id: current.id } });
    });
  }

  /** Runs in the transaction that removes a member (other modules drop what they hold for that user there). */
  onRemoved(hook: (tx: Tx, tenantId: string, userId: string) => Promise<unknown>): void {
    this.removedHooks.push(hook);
  }

  /** Runs in the transaction that moves a membership out of `active` (suspended, left). */
  onDeactivated(hook: (tx: Tx, tenantId: string, userId: string) => Promise<unknown>): void {
    this.deactivatedHooks.push(hook);
  }

  private async find(tx: DbOrTx, tenantId: string, userId: string) {
    const m = await tx.membership.findUnique({ where: { tenantId_userId: { tenantId, userId } }, include: withUser });
    if (!m) throw notFound("membership");
    return m;
  }

  private assertOwner(actor: Actor, message: string): void {
    if (actor.role !== "owner") throw forbidden(message);
  }

  private async assertAnotherActiveOwner(tx: DbOrTx, tenantId: string, exceptUserId: string): Promise<void> {
    const others = await tx.membership.count({ where: { tenantId, membershipType: "owner", status: "active", userId: { not: exceptUserId } } });
    if (others === 0) throw conflict("the workspace must keep at least one active owner");
  }

  /**
   * Serialises membership changes of one workspace on PostgreSQL (row lock on the workspace), so two
   * owners demoting each other at once cannot both pass the last-owner check. SQLite already allows
   * one writer at a time.
   */
  private async lockOwners(tx: Tx, tenantId: string): Promise<void> {
    if (this.dbKind === "postgresql") await tx.$queryRaw`SELECT 1 FROM "Workspace" WHERE "id" = ${tenantId} FOR UPDATE`;
  }
}
