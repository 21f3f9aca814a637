// Who is calling: the first argument of every service method. Permission and tenant checks live
// in the services (not only in adapters), so REST and GraphQL enforce exactly the same rules.
import { forbidden } from "./errors";

export const MEMBERSHIP_TYPES = ["owner", "admin", "member", "contractor", "service_operator", "readonly_auditor"] as const;
export type MembershipType = (typeof MEMBERSHIP_TYPES)[number];

export interface Actor {
  userId: string;
  /** The workspace (= tenant) the admin JWT names. */
  tenantId: string;
  role: MembershipType;
}

const WRITERS: ReadonlySet<MembershipType> = new Set(["owner", "admin"]);
const READERS: ReadonlySet<MembershipType> = new Set(["owner", "admin", "readonly_auditor"]);

/** Owners and admins may change the workspace. */
export function assertCanWrite(actor: Actor): void {
  if (!WRITERS.has(actor.role)) throw forbidden("this action needs the owner or admin role in the workspace");
}

/** What changes the whole installation (database migrations) needs a workspace owner. */
export function assertOwner(actor: Actor): void {
  if (actor.role !== "owner") throw forbidden("this action needs the owner role in the workspace");
}

/** Owners, admins and read-only auditors may read the workspace. */
export function assertCanRead(actor: Actor): void {
  if (!READERS.has(actor.role)) throw forbidden("this action needs the owner, admin or readonly_auditor role in the workspace");
}

/** A path that names a workspace must name the caller's own. */
export function assertSameTenant(actor: Actor, tenantId: string): void {
  if (actor.tenantId !== tenantId) throw forbidden("the token is not valid for this workspace");
}
