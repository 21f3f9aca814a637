// The proposed changes a preview accepts (POST /svc/v1/applications/:id/access-change-previews).
import { z } from "zod";

const uuid = () => z.string().uuid("must be a UUID");
const scopeKey = z.string().min(1).max(200);
const toolName = z.string().min(1).max(200);
// An OAuth client_id is opaque (URL-safe) or, for CIMD clients, the metadata URL (as rest/role-bindings.ts).
const oauthClientId = z.string().min(1).max(2048);

export const changeSchema = z.discriminatedUnion("kind", [
  /**
   * A role binding for a user, a group or a client's service account (scope_type as the bindings
   * API: null or "*" tenant-wide, "resource_server" + scope_id). A service account's subject_id is
   * the OAuth client_id (or the client's row id), as POST /svc/clientms/clients/:client_id/role-bindings.
   */
  z
    .object({
      kind: z.literal("binding_add"),
      subject_type: z.enum(["user", "group", "service_account"]),
      subject_id: z.string().min(1).max(2048),
      role_id: uuid(),
      scope_type: z.enum(["*", "resource_server"]).nullable().optional(),
      scope_id: uuid().nullable().optional(),
      expires_at: z.iso.datetime({ offset: true }).nullable().optional(),
    })
    .strict()
    .refine((c) => c.subject_type === "service_account" || z.string().uuid().safeParse(c.subject_id).success, { message: "must be a UUID", path: ["subject_id"] }),
  z.object({ kind: z.literal("binding_remove"), binding_id: uuid() }).strict(),
  /** The role's grants on this application: scopes added and removed. */
  z
    .object({ kind: z.literal("role_grants"), role_id: uuid(), add: z.array(scopeKey).max(200).default([]), remove: z.array(scopeKey).max(200).default([]) })
    .strict()
    .refine((c) => c.add.length + c.remove.length > 0, { message: "name at least one scope to add or remove", path: ["add"] }),
  /** Suspending a user (end-user state): they hold nothing. */
  z.object({ kind: z.literal("user_suspend"), user_id: uuid() }).strict(),
  /** Marking a tool public: every active member may call it. */
  z.object({ kind: z.literal("tool_public"), tool_name: toolName }).strict(),
  /** A tool's scopes become `scope_ids` ([] unmaps it: denied to everyone). */
  z.object({ kind: z.literal("tool_mapping"), tool_name: toolName, scope_ids: z.array(scopeKey).max(200) }).strict(),
  /** Deleting a scope: roles lose it, tools mapped only to it become unmapped. */
  z.object({ kind: z.literal("scope_delete"), scope_id: scopeKey }).strict(),
  /**
   * The application's access policy (the body of PUT /svc/resource-servers/:id/access-policy): an
   * omitted default_role_id or first_time_grant keeps the current one, null clears the role.
   */
  z
    .object({ kind: z.literal("default_role"), enabled: z.boolean(), default_role_id: uuid().nullable().optional(), first_time_grant: z.enum(["default_role", "none"]).optional() })
    .strict(),
  /** Revoking a client on this application (a dcr/cimd client's connection, or a pre-registered client): its tokens stop working at once. */
  z.object({ kind: z.literal("connection_revoke"), client_id: oauthClientId }).strict(),
]);
export type ProposedChange = z.infer<typeof changeSchema>;
export const CHANGE_KINDS = ["binding_add", "binding_remove", "role_grants", "user_suspend", "tool_public", "tool_mapping", "scope_delete", "default_role", "connection_revoke"] as const satisfies readonly ProposedChange["kind"][];

export const previewRequestSchema = z.object({ change: changeSchema }).strict();
