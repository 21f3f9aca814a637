// The access policy of a server: whether first-time users get a default role, which one, and the
// first-time grant setting. No row means "not configured yet" (the setup checklist item stays red
// until an administrator enables it with a role or disables it explicitly). After activation,
// switching it off or replacing the role writes its drift event in the same transaction.
// The write locks the server first (servers.lockForWrite): the upsert below is emulated by Prisma (SELECT,
// then INSERT or UPDATE: its `include` rules out PostgreSQL's ON CONFLICT), and the drift events
// compare against the prior row, so concurrent PUTs must take turns.
import type { Db } from "../../../storage";
import type { Clock } from "../../../shared/clock";
import { badRequest } from "../../../shared/errors";
import { type Actor, assertCanRead, assertCanWrite } from "../../../shared/actor";
import type { ResourceServerService } from "../resource-server-service";
import type { DriftRecorder } from "../drift/record";
import type { AccessPolicyInput } from "./schemas";

type PolicyRow = { enabled: boolean; defaultRoleId: string | null; firstTimeGrant: string; updatedAt: Date; updatedBy: string | null; defaultRole: { name: string } | null };

export function toAccessPolicyView(rsId: string, p: PolicyRow | null) {
  return {
    rs_id: rsId,
    configured: p !== null,
    enabled: p?.enabled ?? false,
    default_role_id: p?.defaultRoleId ?? null,
    default_role_name: p?.defaultRole?.name ?? null,
    first_time_grant: p?.firstTimeGrant ?? "default_role",
    updated_at: p?.updatedAt.toISOString() ?? null,
    updated_by: p?.updatedBy ?? null,
  };
}
export type AccessPolicyView = ReturnType<typeof toAccessPolicyView>;

export class AccessPolicyService {
  constructor(
    private readonly db: Db,
    private readonly servers: ResourceServerService,
    private readonly drift: DriftRecorder,
    private readonly clock: Clock,
  ) {}

  async get(actor: Actor, rsId: string): Promise<AccessPolicyView> {
    assertCanRead(actor);
    await this.servers.findLive(this.db, actor, rsId);
    const row = await this.db.accessPolicy.findFirst({ where: { resourceServerId: rsId, tenantId: actor.tenantId }, include: { defaultRole: { select: { name: true } } } });
    return toAccessPolicyView(rsId, row);
  }

  async put(actor: Actor, rsId: string, input: AccessPolicyInput): Promise<AccessPolicyView> {
    assertCanWrite(actor);
    const now = this.clock.now();
    const row = await this.db.$transaction(async (tx) => {
      await this.servers.lockForWrite(tx, actor.tenantId, rsId);
      const rs = await this.servers.findLive(tx, actor, rsId);
      const prior = await tx.accessPolicy.findFirst({ where: { resourceServerId: rsId, tenantId: actor.tenantId } });
      const roleId = input.default_role_id === undefined ? (prior?.defaultRoleId ?? null) : input.default_role_id;
      if (roleId !== null) {
        // Another workspace's role is as unknown as a made-up id.
        const role = await tx.role.findFirst({ where: { id: roleId, tenantId: actor.tenantId }, select: { id: true } });
        if (!role) throw badRequest("default_role_id: no role with this id in the workspace");
      }
      if (input.enabled && roleId === null) throw badRequest("default_role_id: is required when enabled is true");
      const firstTimeGrant = input.first_time_grant ?? prior?.firstTimeGrant ?? "default_role";
      const data = { enabled: input.enabled, defaultRoleId: roleId, firstTimeGrant, updatedAt: now, updatedBy: actor.userId };
      const saved = await tx.accessPolicy.upsert({
        where: { resourceServerId: rsId },
        create: { resourceServerId: rsId, tenantId: actor.tenantId, ...data },
        update: data,
        include: { defaultRole: { select: { name: true } } },
      });
      const ctx = { server: rs, actorId: actor.userId, at: now };
      if (prior?.enabled && !input.enabled) {
        await this.drift.record(tx, ctx, "default_role_disabled", [{ prior_default_role: prior.defaultRoleId ?? "" }]);
      }
      // A replaced role is drift only while a policy is in force before and after: disabling is its
      // own event, and a disabled policy's stored role grants nobody anything.
      if (prior?.enabled && input.enabled && prior.defaultRoleId && roleId && prior.defaultRoleId !== roleId) {
        await this.drift.record(tx, ctx, "default_role_changed", [{ prior_default_role: prior.defaultRoleId, new_default_role: roleId }]);
      }
      return saved;
    });
    return toAccessPolicyView(rsId, row);
  }
}
