// Which cache entries a written row changes: the one table of the whole codebase that maps rows to
// cache keys (docs/decisions/0001-per-entry-caches.md). The unit of work (unit-of-work.ts) applies
// it to every row a transaction creates, updates or deletes, so a new write path cannot forget to
// invalidate, and no service names a cache key.
//
// Rules for an entry here:
// - `fields` are the columns the keys are built from. They identify the row's owner and never
//   change after insert, except ResourceServer.resourceUrl: its `resource` lookup is re-validated
//   against the server entry on use (resource-servers/registry.ts), so a stale old URL cannot match.
// - `ignore` lists columns whose change no cache holds (bookkeeping stamps): an update that sets
//   only those invalidates nothing (the token endpoint's batched last-used stamps).
// - Deletes the database cascades (ON DELETE CASCADE) are not seen. Each cascade here is covered by
//   the parent's own key: Tool/Scope -> ToolScope (policy of the server), Role -> RoleGrant (role),
//   Group -> GroupMember: the group's bindings are deleted explicitly and tracked, so a member
//   entry that still lists the gone group resolves nothing from it.
import { canonicalResource } from "../shared/resource-url";
import type { ChangeKind } from "./change-bus";

type Row = Record<string, unknown>;

export interface TrackedModel {
  kinds: readonly ChangeKind[];
  fields: readonly string[];
  keys(row: Row): string[];
  ignore?: readonly string[];
  /** Deleting rows changes nothing cached (expired revocations, pruned by each instance itself). */
  deletesChangeNothing?: boolean;
}

const member = (r: Row) => [`member:${r.tenantId}:${r.userId}`];
const policyOf = (field: string) => (r: Row) => [`policy:${r[field]}`];
const epochMs = (d: unknown) => (d instanceof Date ? d.getTime() : new Date(String(d)).getTime());

export const TRACKED_MODELS: Readonly<Record<string, TrackedModel>> = {
  Membership: { kinds: ["member"], fields: ["tenantId", "userId"], keys: member, ignore: ["updatedAt"] },
  EndUserState: { kinds: ["member"], fields: ["tenantId", "userId"], keys: member, ignore: ["updatedAt"] },
  GroupMember: { kinds: ["member"], fields: ["tenantId", "userId"], keys: member },
  RoleBinding: {
    kinds: ["bindings"],
    fields: ["tenantId", "subjectType", "subjectId"],
    keys: (r) => [`bindings:${r.tenantId}:${r.subjectType}:${r.subjectId}`],
  },
  Role: { kinds: ["role"], fields: ["id"], keys: (r) => [`role:${r.id}`], ignore: ["updatedAt", "name", "description"] },
  RoleGrant: { kinds: ["role"], fields: ["roleId"], keys: (r) => [`role:${r.roleId}`] },
  Client: { kinds: ["client"], fields: ["clientId"], keys: (r) => [`client:${r.clientId}`], ignore: ["lastUsedAt", "updatedAt"] },
  // A client's link to one server (clients/connections.ts). Deleting a client cascades to its
  // connections unseen; the client's own key covers that (a deleted client is refused first).
  Connection: {
    kinds: ["connection"],
    fields: ["resourceServerId", "clientId"],
    keys: (r) => [`connection:${r.resourceServerId}:${r.clientId}`],
    ignore: ["lastConnectedAt", "updatedAt", "scopesGranted"],
  },
  ResourceServer: {
    kinds: ["server", "resource", "policy"],
    fields: ["id", "tenantId", "resourceUrl"],
    keys: (r) => [`server:${r.id}`, `resource:${r.tenantId}:${canonicalResource(String(r.resourceUrl)) ?? r.resourceUrl}`, `policy:${r.id}`],
    ignore: ["updatedAt"],
  },
  Tool: { kinds: ["policy"], fields: ["resourceServerId"], keys: policyOf("resourceServerId"), ignore: ["updatedAt"] },
  Scope: { kinds: ["policy"], fields: ["resourceServerId"], keys: policyOf("resourceServerId") },
  ToolScope: { kinds: ["policy"], fields: ["resourceServerId"], keys: policyOf("resourceServerId") },
  DriftEvent: { kinds: ["policy"], fields: ["rsId"], keys: policyOf("rsId") },
  SigningKey: { kinds: ["keys"], fields: ["kid"], keys: () => ["keys:all"] },
  // The key carries the expiry, so another instance adds the entry without reading the row.
  RevokedToken: { kinds: ["revoked_token"], fields: ["jti", "expiresAt"], keys: (r) => [`revoked_token:${epochMs(r.expiresAt)}:${r.jti}`], deletesChangeNothing: true },
  // Whether a workspace has active webhooks (the fan-out skips workspaces without, modules/integrations);
  // the dispatcher's circuit-breaker bookkeeping changes nothing cached.
  WebhookSubscription: {
    kinds: ["webhooks"],
    fields: ["tenantId"],
    keys: (r) => [`webhooks:${r.tenantId}`],
    ignore: ["updatedAt", "consecutiveFailures", "circuitOpenUntil"],
  },
  // The trusts of a workspace (modules/trusts/registry.ts): one entry per workspace for both kinds.
  IdJagTrust: { kinds: ["trusts"], fields: ["tenantId"], keys: (r) => [`trusts:${r.tenantId}`], ignore: ["updatedAt"] },
  WorkloadTrust: { kinds: ["trusts"], fields: ["tenantId"], keys: (r) => [`trusts:${r.tenantId}`], ignore: ["updatedAt"] },
  // An agent connection's approval state (modules/access-requests): the jwt-bearer grant reads it per request.
  AccessRequest: {
    kinds: ["agent_connection"],
    fields: ["clientId", "userId", "resourceServerId"],
    keys: (r) => [`agent_connection:${r.resourceServerId}:${r.userId}:${r.clientId}`],
    ignore: ["updatedAt", "lastConnectedAt"],
  },
  RevokedFamily: {
    kinds: ["revoked_family"],
    fields: ["familyId", "expiresAt"],
    keys: (r) => [`revoked_family:${epochMs(r.expiresAt)}:${r.familyId}`],
    deletesChangeNothing: true,
  },
};

/** Above this many rows in one bulk write, the whole kind is dropped instead of each entry. */
export const BULK_KEY_LIMIT = 500;
