// Input validation for roles, groups and role bindings (zod, strict: unknown fields are 400).
// REST and GraphQL parse with these same schemas, so both refuse the same input the same way.
import { z } from "zod";
import type { Prisma } from "../../generated/sqlite/client";
import { Keyset, pageQuerySchema } from "../../shared/pagination";
import { uniqueList } from "../../shared/zod";
import { scopeTokenSchema } from "../resource-servers";

const uuid = () => z.string().uuid("must be a UUID");
const description = z.string().trim().max(1000).nullish();
const name = z.string().trim().min(1, "must not be empty").max(200);

// ---------------------------------------------------------------- roles

const grantSchema = z
  .object({
    resource_server_id: uuid(),
    scope_ids: uniqueList(scopeTokenSchema, 200).min(1, "must name at least one scope"),
  })
  .strict();

/** Create and PUT (full replacement) share one shape: `grants` is required so a PUT never clears them by omission. */
export const roleInputSchema = z
  .object({
    name,
    description,
    grants: z
      .array(grantSchema)
      .max(100)
      .refine((g) => new Set(g.map((x) => x.resource_server_id)).size === g.length, "must list each resource_server_id once"),
  })
  .strict();
export type RoleInput = z.infer<typeof roleInputSchema>;

/** The roles list: by name, the row id breaking ties. */
export const ROLE_LIST = new Keyset<{ name: string; id: string }, Prisma.RoleWhereInput, Prisma.RoleOrderByWithRelationInput[]>(
  "roles",
  [
    { field: "name", dir: "asc", kind: "string" },
    { field: "id", dir: "asc", kind: "string" },
  ],
  (r) => [r.name, r.id],
);
export const listRolesQuery = pageQuerySchema(ROLE_LIST);

// ---------------------------------------------------------------- groups

export const createGroupSchema = z.object({ name, description }).strict();
export type CreateGroupInput = z.infer<typeof createGroupSchema>;

export const addGroupMemberSchema = z.object({ user_id: uuid() }).strict();

/** The groups list: by name, the row id breaking ties. */
export const GROUP_LIST = new Keyset<{ name: string; id: string }, Prisma.GroupWhereInput, Prisma.GroupOrderByWithRelationInput[]>(
  "groups",
  [
    { field: "name", dir: "asc", kind: "string" },
    { field: "id", dir: "asc", kind: "string" },
  ],
  (g) => [g.name, g.id],
);
export const listGroupsQuery = pageQuerySchema(GROUP_LIST);

/** The members of a group: in the order they joined, the user id breaking ties (the key is group + user). */
export const GROUP_MEMBER_LIST = new Keyset<{ createdAt: Date; userId: string }, Prisma.GroupMemberWhereInput, Prisma.GroupMemberOrderByWithRelationInput[]>(
  "group-members",
  [
    { field: "createdAt", dir: "asc", kind: "date" },
    { field: "userId", dir: "asc", kind: "string" },
  ],
  (m) => [m.createdAt, m.userId],
);
export const listGroupMembersQuery = pageQuerySchema(GROUP_MEMBER_LIST);

// ---------------------------------------------------------------- role bindings

/** scope_type: null or "*" = tenant-wide, "resource_server" = only the server named by scope_id. */
export const SCOPE_TYPES = ["*", "resource_server"] as const;

/**
 * The spec's group-binding body, also used for user and service-account bindings. tenant_id must
 * name the caller's workspace; workspace_id is accepted as its newer name (spec "Versioning" 3),
 * and is read first when both are sent.
 */
export const createBindingSchema = z
  .object({
    tenant_id: uuid().optional(),
    workspace_id: uuid().optional(),
    role_id: uuid(),
    scope_type: z.enum(SCOPE_TYPES).nullish(),
    scope_id: uuid().nullish(),
    // Free-form, stored as given; enforced in a later phase (spec "Role binding").
    conditions: z.record(z.string(), z.unknown()).nullish(),
    expires_at: z.iso.datetime({ offset: true, message: "must be an ISO 8601 timestamp with a time zone" }).nullish(),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (!b.tenant_id && !b.workspace_id) ctx.addIssue({ code: "custom", path: ["tenant_id"], message: "is required" });
    if (b.tenant_id && b.workspace_id && b.tenant_id !== b.workspace_id) {
      ctx.addIssue({ code: "custom", path: ["workspace_id"], message: "must equal tenant_id" });
    }
    if (b.scope_type === "resource_server" && !b.scope_id) {
      ctx.addIssue({ code: "custom", path: ["scope_id"], message: "is required when scope_type is resource_server" });
    }
    if (b.scope_type !== "resource_server" && b.scope_id) {
      ctx.addIssue({ code: "custom", path: ["scope_id"], message: "is only allowed when scope_type is resource_server" });
    }
  })
  .transform((b) => ({
    tenantId: (b.workspace_id ?? b.tenant_id)!,
    roleId: b.role_id,
    scopeType: b.scope_type ?? null,
    scopeId: b.scope_id ?? null,
    conditions: b.conditions ?? null,
    expiresAt: b.expires_at ? new Date(b.expires_at) : null,
  }));
export type CreateBindingInput = z.output<typeof createBindingSchema>;

/** The bindings of one subject (user, group or service account): oldest first, the row id breaking ties. */
export const ROLE_BINDING_LIST = new Keyset<{ createdAt: Date; id: string }, Prisma.RoleBindingWhereInput, Prisma.RoleBindingOrderByWithRelationInput[]>(
  "role-bindings",
  [
    { field: "createdAt", dir: "asc", kind: "date" },
    { field: "id", dir: "asc", kind: "string" },
  ],
  (b) => [b.createdAt, b.id],
);
export const listRoleBindingsQuery = pageQuerySchema(ROLE_BINDING_LIST);
