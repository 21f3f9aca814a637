// GET /uflow/v2/users/:user_id/effective-access: every binding affecting the user now, directly or
// through any of their groups in this workspace. A binding whose expires_at is at or before now is
// excluded (spec). This lists assignments; whether the user may use them (membership and end-user
// status) is the scope resolver's question, so a suspended user's bindings are still listed.
import type { Db } from "../../storage";
import type { Clock } from "../../shared/clock";
import { notFound } from "../../shared/errors";
import { type Actor, assertCanRead } from "../../shared/actor";
import { toEffectiveAccessItem, type EffectiveAccessItem } from "./views";

export class EffectiveAccessService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async forUser(actor: Actor, userId: string): Promise<EffectiveAccessItem[]> {
    assertCanRead(actor);
    const membership = await this.db.membership.findUnique({ where: { tenantId_userId: { tenantId: actor.tenantId, userId } }, select: { id: true } });
    if (!membership) throw notFound("user");
    return (await this.forUsers(actor, [userId])).get(userId)!;
  }

  /**
   * The same answer for many users in two queries (the GraphQL list of users batches through this).
   * A user who is not a member here simply has no binding here.
   */
  async forUsers(actor: Actor, userIds: readonly string[]): Promise<Map<string, EffectiveAccessItem[]>> {
    assertCanRead(actor);
    const tenantId = actor.tenantId;
    const result = new Map<string, EffectiveAccessItem[]>(userIds.map((id) => [id, []]));
    if (userIds.length === 0) return result;
    const memberships = await this.db.groupMember.findMany({ where: { tenantId, userId: { in: [...userIds] } }, select: { groupId: true, userId: true } });
    const usersOfGroup = new Map<string, string[]>();
    for (const m of memberships) usersOfGroup.set(m.groupId, [...(usersOfGroup.get(m.groupId) ?? []), m.userId]);
    const rows = await this.db.roleBinding.findMany({
      where: {
        tenantId,
        OR: [{ subjectType: "user", subjectId: { in: [...userIds] } }, ...(usersOfGroup.size ? [{ subjectType: "group", subjectId: { in: [...usersOfGroup.keys()] } }] : [])],
        AND: [{ OR: [{ expiresAt: null }, { expiresAt: { gt: this.clock.now() } }] }],
      },
      include: { role: { select: { name: true } } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    for (const b of rows) {
      const affected = b.subjectType === "user" ? [b.subjectId] : (usersOfGroup.get(b.subjectId) ?? []);
      for (const userId of affected) result.get(userId)?.push(toEffectiveAccessItem(b));
    }
    return result;
  }
}
