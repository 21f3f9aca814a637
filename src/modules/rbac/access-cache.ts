// The access facts the scope resolver needs, cached per entry (docs/decisions/0001-per-entry-caches.md):
//   member    "<tenant>:<user>"                 -> active? (membership active, end user not suspended) and group ids
//   bindings  "<tenant>:<subjectType>:<subject>" -> the subject's role bindings in that workspace
//   role      "<roleId>"                        -> resource server id -> scope keys the role grants there
// Each miss is one or a few indexed queries; the unit of work drops an entry when a row behind it
// is written (storage/change-tracking.ts), so nothing here knows who writes what.
import type { Db } from "../../storage";
import type { CacheFactory } from "../../storage/cache-factory";
import type { EntryCache } from "../../shared/entry-cache";

export interface IndexedBinding {
  id: string;
  tenantId: string;
  roleId: string;
  subjectType: string;
  subjectId: string;
  scopeType: string | null;
  scopeId: string | null;
  /** Epoch ms, or null for no expiry. Compared with the clock at call time, never at load time. */
  expiresAtMs: number | null;
}

export interface MemberFacts {
  /** An active membership and an end-user state that is not suspended. */
  active: boolean;
  groupIds: readonly string[];
}

/** role -> resource server id -> scope keys. */
export type RoleGrants = ReadonlyMap<string, readonly string[]>;

export const memberKey = (tenantId: string, userId: string): string => `${tenantId}:${userId}`;
export const bindingsKey = (tenantId: string, subjectType: string, subjectId: string): string => `${tenantId}:${subjectType}:${subjectId}`;

export interface AccessCaches {
  members: EntryCache<MemberFacts>;
  bindings: EntryCache<readonly IndexedBinding[]>;
  roles: EntryCache<RoleGrants>;
}

export function createAccessCaches(db: Db, caches: CacheFactory): AccessCaches {
  return {
    members: caches.create<MemberFacts>("member", async (key) => {
      const [tenantId, userId] = key.split(":") as [string, string];
      const where = { tenantId_userId: { tenantId, userId } };
      const [membership, endUser, groups] = await Promise.all([
        db.membership.findUnique({ where, select: { status: true } }),
        db.endUserState.findUnique({ where, select: { status: true } }),
        db.groupMember.findMany({ where: { tenantId, userId }, select: { groupId: true } }),
      ]);
      return { active: membership?.status === "active" && endUser?.status !== "suspended", groupIds: groups.map((g) => g.groupId) };
    }),
    bindings: caches.create<readonly IndexedBinding[]>("bindings", async (key) => {
      const [tenantId, subjectType, subjectId] = key.split(":") as [string, string, string];
      const rows = await db.roleBinding.findMany({
        where: { tenantId, subjectType, subjectId },
        select: { id: true, tenantId: true, roleId: true, subjectType: true, subjectId: true, scopeType: true, scopeId: true, expiresAt: true },
      });
      return rows.map(({ expiresAt, ...b }) => ({ ...b, expiresAtMs: expiresAt ? expiresAt.getTime() : null }));
    }),
    roles: caches.create<RoleGrants>("role", async (roleId) => {
      const rows = await db.roleGrant.findMany({ where: { roleId }, select: { resourceServerId: true, scopeKey: true } });
      const grants = new Map<string, string[]>();
      for (const g of rows) {
        const list = grants.get(g.resourceServerId);
        if (list) list.push(g.scopeKey);
        else grants.set(g.resourceServerId, [g.scopeKey]);
      }
      return grants;
    }),
  };
}
