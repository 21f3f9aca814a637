// Groups of workspace members. A group is a binding subject: its members hold what its bindings
// grant, so every change of membership (and deleting a group with its bindings) reloads the
// scope resolver's snapshot.
import type { Db, DbOrTx } from "../../storage";
import { isUniqueViolation } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { badRequest, conflict, notFound } from "../../shared/errors";
import { type Actor, assertCanRead, assertCanWrite } from "../../shared/actor";
import type { CreateGroupInput } from "./schemas";
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

  async list(actor: Actor): Promise<{ items: GroupView[]; count: number }> {
    assertCanRead(actor);
    const rows = await this.db.group.findMany({ where: { tenantId: actor.tenantId }, include: withCount, orderBy: [{ name: "asc" }, { id: "asc" }] });
    return { items: rows.map(toGroupView), count: rows.length };
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

  async listMembers(actor: Actor, groupId: string): Promise<{ items: GroupMemberView[]; count: number }> {
    assertCanRead(actor);
    await this.find(this.db, actor, groupId);
    const rows = await this.db.groupMember.findMany({ where: { groupId }, include: withUser, orderBy: [{ createdAt: "asc" }, { userId: "asc" }] });
    return { items: rows.map(toGroupMemberView), count: rows.length };
  }

  /** The workspace's group, or 404. */
  async find(tx: DbOrTx, actor: Actor, id: string) {
    const g = await tx.group.findFirst({ where: { id, tenantId: actor.tenantId } });
    if (!g) throw notFound("group");
    return g;
  }
}
