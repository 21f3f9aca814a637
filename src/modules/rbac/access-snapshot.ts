// A read-only, in-memory copy of everything the scope resolver needs: active memberships,
// suspended end users, group members, role bindings, role grants, and which service-account
// subject an OAuth client_id is. Built by one full load; a write never patches it in place, it
// makes the resolver load a new snapshot and swap it in (so a reader never sees a half-update).
import type { Db } from "../../storage";

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

export interface AccessSnapshot {
  /** `tenantId:userId` of every membership whose status is `active`. */
  activeMembers: ReadonlySet<string>;
  /** `tenantId:userId` of every end user whose state is `suspended`. */
  suspendedEndUsers: ReadonlySet<string>;
  /** `tenantId:userId` -> the ids of the user's groups in that workspace. */
  groupsOf: ReadonlyMap<string, readonly string[]>;
  /** `subjectType:subjectId` -> bindings (subject ids are UUIDs, unique across workspaces). */
  bindingsOf: ReadonlyMap<string, readonly IndexedBinding[]>;
  /** roleId -> resourceServerId -> scope keys the role grants there. */
  grants: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>;
  /** `tenantId:oauthClientId` -> the client's internal id (the service-account subject id). */
  serviceAccountOf: ReadonlyMap<string, string>;
}

export const memberKey = (tenantId: string, userId: string): string => `${tenantId}:${userId}`;
export const subjectKey = (subjectType: string, subjectId: string): string => `${subjectType}:${subjectId}`;

export const EMPTY_SNAPSHOT: AccessSnapshot = {
  activeMembers: new Set(),
  suspendedEndUsers: new Set(),
  groupsOf: new Map(),
  bindingsOf: new Map(),
  grants: new Map(),
  serviceAccountOf: new Map(),
};

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export async function loadAccessSnapshot(db: Db): Promise<AccessSnapshot> {
  const [members, suspended, groupMembers, bindings, grants] = await Promise.all([
    db.membership.findMany({ where: { status: "active" }, select: { tenantId: true, userId: true } }),
    db.endUserState.findMany({ where: { status: "suspended" }, select: { tenantId: true, userId: true } }),
    db.groupMember.findMany({ select: { tenantId: true, userId: true, groupId: true } }),
    db.roleBinding.findMany({
      select: { id: true, tenantId: true, roleId: true, subjectType: true, subjectId: true, scopeType: true, scopeId: true, expiresAt: true },
    }),
    db.roleGrant.findMany({ select: { roleId: true, resourceServerId: true, scopeKey: true } }),
  ]);
  // Only clients that are service-account subjects need an entry: the others have no bindings.
  const serviceAccountIds = [...new Set(bindings.filter((b) => b.subjectType === "service_account").map((b) => b.subjectId))];
  const clients = serviceAccountIds.length
    ? await db.client.findMany({ where: { id: { in: serviceAccountIds } }, select: { id: true, tenantId: true, clientId: true } })
    : [];

  const groupsOf = new Map<string, string[]>();
  for (const gm of groupMembers) push(groupsOf, memberKey(gm.tenantId, gm.userId), gm.groupId);

  const bindingsOf = new Map<string, IndexedBinding[]>();
  for (const b of bindings) {
    push(bindingsOf, subjectKey(b.subjectType, b.subjectId), {
      id: b.id,
      tenantId: b.tenantId,
      roleId: b.roleId,
      subjectType: b.subjectType,
      subjectId: b.subjectId,
      scopeType: b.scopeType,
      scopeId: b.scopeId,
      expiresAtMs: b.expiresAt ? b.expiresAt.getTime() : null,
    });
  }

  const grantMap = new Map<string, Map<string, string[]>>();
  for (const g of grants) {
    let perServer = grantMap.get(g.roleId);
    if (!perServer) grantMap.set(g.roleId, (perServer = new Map()));
    push(perServer, g.resourceServerId, g.scopeKey);
  }

  return {
    activeMembers: new Set(members.map((m) => memberKey(m.tenantId, m.userId))),
    suspendedEndUsers: new Set(suspended.map((s) => memberKey(s.tenantId, s.userId))),
    groupsOf,
    bindingsOf,
    grants: grantMap,
    serviceAccountOf: new Map(clients.map((c) => [memberKey(c.tenantId, c.clientId), c.id])),
  };
}
