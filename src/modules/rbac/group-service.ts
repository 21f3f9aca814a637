// Groups of workspace members. A group is a binding subject: its members hold what its bindings
// grant. A change of membership drops that member's cached access facts, deleting a group drops
// its bindings' entries; the unit of work does both after commit
// (docs/decisions/0001-per-entry-caches.md).
import type { Db, DbOrTx } from "../../storage";
import { isUniqueViolation } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { badRequest, conflict, notFound } from "../../shared/errors";
import { type Actor, assertCanRead, assertCanWrite } from "../../shared/actor";
import { FIRST_PAGE, type Page, type PageRequest } from "../../shared/pagination";
import { GROUP_LIST, GROUP_MEMBER_LIST, type CreateGroupInput } from "./schemas";
import { toGroupMemberView, toGroupView, type GroupMemberView, type GroupView } from "./views";

const withCount = { _count: { select: { members: true } } } as const;
const withUser = { user: { select: { email: true, username: true } } } as const;

export class GroupService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async create(actor: Actor, input: CreateGroupInput): Promise<GroupView> {
    assertCanWrite(actor);
    try {
      const g = await this.db.group.create({
        data: { id: this.ids.uuid(), tenantId: actor.tenantId, name: input.name, description: input.description ?? null, createdAt: this.clock.now() },
        include: withCount,
      });
      return toGroupView(g);
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict("a group with this name already exists in the workspace");
      throw e;
    }
  }

  /** One page of the workspace's groups, by name (GROUP_LIST). */
  async list(actor: Actor, page: PageRequest = FIRST_PAGE): Promise<Page<GroupView>> {
    assertCanRead(actor);
    const rows = await this.db.group.findMany({
      where: GROUP_LIST.where({ tenantId: actor.tenantId }, page.cursor),
      include: withCount,
      orderBy: GROUP_LIST.orderBy,
      take: page.limit + 1,
    });
    return GROUP_LIST.page(rows, page.limit, toGroupView);
  }

  async get(actor: Actor, id: string): Promise<GroupView> {
    assertCanRead(actor);
    const g = await this.db.group.findFirst({ where: { id, tenantId: actor.tenantId }, include: withCount });
    if (!g) throw notFound("group");
    return toGroupView(g);
  }

  /** Deletes the group, its memberships and its role bindings (a binding to a gone group means nothing). */
  async remove(actor: Actor, id: string): Promise<void> {
    assertCanWrite(actor);
    await this.db.$transaction(async (tx) => {
      await this.find(tx, actor, id);
      await tx.roleBinding.deleteMany({ where: { tenantId: actor.tenantId, subjectType: "group", subjectId: id } });
      await tx.group.delete({ where: { id } });
    });
  }

  /** Idempotent: adding a present member returns the existing row with created=false. */
  async addMember(actor: Actor, groupId: string, userId: string): Promise<{ member: GroupMemberView; created: boolean }> {
    assertCanWrite(actor);
    const result = await this.db
      .$transaction(async (tx) => {
      await this.find(tx, actor, groupId);
      const membership = await tx.membership.findUnique({ where: { tenantId_userId: { tenantId: actor.tenantId, userId } }, select: { id: true } });
      if (!membership) throw badRequest("user_id: not a member of this workspace");
      const existing = await tx.groupMember.findUnique({ where: { groupId_userId: { groupId, userId } }, include: withUser });
      if (existing) return { member: existing, created: false };
      const member = await tx.groupMember.create({ data: { groupId, userId, tenantId: actor.tenantId, createdAt: this.clock.now() }, include: withUser });
      return { member, created: true };
    })
      .catch(async (e) => {
        // A concurrent add of the same member won the race: answer as for an existing member.
        if (!isUniqueViolation(e)) throw e;
        return { member: await this.db.groupMember.findUniqueOrThrow({ where: { groupId_userId: { groupId, userId } }, include: withUser }), created: false };
      });
    return { member: toGroupMemberView(result.member), created: result.created };
  }

  async removeMember(actor: Actor, groupId: string, userId: string): Promise<void> {
    assertCanWrite(actor);
    await this.db.$transaction(async (tx) => {
      await this.find(tx, actor, groupId);
      const { count } = await tx.groupMember.deleteMany({ where: { groupId, userId } });
      if (count === 0) throw notFound("group member");
    });
  }

  /** One page of a group's members, in the order they joined (GROUP_MEMBER_LIST). */
  async listMembers(actor: Actor, groupId: string, page: PageRequest = FIRST_PAGE): Promise<Page<GroupMemberView>> {
    assertCanRead(actor);
    await this.find(this.db, actor, groupId);
    const rows = await this.db.groupMember.findMany({
      where: GROUP_MEMBER_LIST.where({ groupId }, page.cursor),
      include: withUser,
      orderBy: GROUP_MEMBER_LIST.orderBy,
      take: page.limit + 1,
    });
    return GROUP_MEMBER_LIST.page(rows, page.limit, toGroupMemberView);
  }

  /** The workspace's group, or 404. */
  async find(tx: DbOrTx, actor: Actor, id: string) {
    const g = await tx.group.findFirst({ where: { id, tenantId: actor.tenantId } });
    if (!g) throw notFound("group");
    return g;
  }

  /**
   * Group sync of a federated sign-in, in its transaction: of the `managed` groups (those a
   * provider's group_sync names), the user ends up a member of exactly `desired`. Other groups are
   * left alone. The unit of work drops the user's cached access facts after commit, as for any
   * membership change, so introspection sees a removal at once.
   */
  async syncMemberships(tx: DbOrTx, tenantId: string, userId: string, managed: readonly string[], desired: readonly string[]): Promise<{ added: number; removed: number }> {
    const want = new Set(desired);
    const stale = managed.filter((g) => !want.has(g));
    const removed = stale.length ? (await tx.groupMember.deleteMany({ where: { tenantId, userId, groupId: { in: stale } } })).count : 0;
    const present = new Set((await tx.groupMember.findMany({ where: { tenantId, userId, groupId: { in: [...want] } }, select: { groupId: true } })).map((m) => m.groupId));
    // Only groups of this workspace (a provider's group_sync was checked when saved; a group deleted since is skipped).
    const existing = (await tx.group.findMany({ where: { tenantId, id: { in: [...want].filter((g) => !present.has(g)) } }, select: { id: true } })).map((g) => g.id);
    for (const groupId of existing) await tx.groupMember.create({ data: { groupId, userId, tenantId, createdAt: this.clock.now() } });
    return { added: existing.length, removed };
  }

  /** For the transaction that removes a member from the workspace (tenancy's hook, wired in app.ts). */
  async removeUserEverywhere(tx: DbOrTx, tenantId: string, userId: string): Promise<void> {
    await tx.groupMember.deleteMany({ where: { tenantId, userId } });
  }
}
