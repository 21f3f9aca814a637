// The first-time-user grant of a server's access policy (spec "Access policy"): when the policy is
// enabled with a default role and grants it to first-time users, a user's FIRST sign-in to the
// server creates a binding of that role scoped to the server. It happens once per user and server
// (recorded in ServerSignIn, in the same transaction); later policy changes leave existing
// bindings untouched, and users who sign in after a change get the role in force then.
import type { Db, Tx } from "../../storage";
import type { Clock } from "../../shared/clock";
import { isUniqueViolation } from "../../storage";

/** Creates the role binding in the sign-in's transaction (rbac owns RoleBinding; wired in app.ts). */
export type GrantRole = (tx: Tx, g: { tenantId: string; roleId: string; userId: string; resourceServerId: string }) => Promise<string>;

export class FirstTimeGrant {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly grantRole: GrantRole,
  ) {}

  /** Records the sign-in; on the first one applies the policy. Returns the created binding id, if any. */
  async onSignIn(tenantId: string, resourceServerId: string, userId: string): Promise<string | null> {
    const now = this.clock.now();
    let bindingId: string | null = null;
    try {
      await this.db.$transaction(async (tx) => {
        const seen = await tx.serverSignIn.findUnique({ where: { userId_resourceServerId: { userId, resourceServerId } } });
        if (seen) return;
        await tx.serverSignIn.create({ data: { tenantId, userId, resourceServerId, firstAt: now } });
        const policy = await tx.accessPolicy.findFirst({ where: { resourceServerId, tenantId } });
        if (!policy?.enabled || !policy.defaultRoleId || policy.firstTimeGrant !== "default_role") return;
        bindingId = await this.grantRole(tx, { tenantId, roleId: policy.defaultRoleId, userId, resourceServerId });
      });
    } catch (e) {
      // A concurrent first sign-in of the same user won the race: nothing more to do.
      if (!isUniqueViolation(e)) throw e;
    }
    return bindingId;
  }
}
