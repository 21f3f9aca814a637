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
    const tenantId = actor.tenantId;
    const membership = await this.db.membership.findUnique({ where: { tenantId_userId: { tenantId, userId } }, select: { id: true } });
    if (!membership) throw notFound("user");
    const groups = await this.db.groupMember.findMany({ where: { tenantId, userId }, select: { groupId: true } });
    const rows = await this.db.roleBinding.findMany({
      where: {
        tenantId,
        OR: [{ subjectType: "user", subjectId: userId }, ...(groups.length ? [{ subjectType: "group", subjectId: { in: groups.map((g) => g.groupId) } }] : [])],
        AND: [{ OR: [{ expiresAt: null }, { expiresAt: { gt: this.clock.now() } }] }],
      },
      include: { role: { select: { name: true } } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    });
    return rows.map(toEffectiveAccessItem);
  }
}
