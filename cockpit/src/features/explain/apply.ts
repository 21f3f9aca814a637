// Applying a fix is the ordinary admin API the fix names, never a special path: a user role binding
// on this application only (POST /uflow/v2/users/:id/role-bindings, docs/people-and-access.md) or
// the tool's scopes (PUT /svc/resource-servers/:id/tool-scope-map, which changes only the tools it lists).
import { rest } from "../../api/rest";
import type { FixChange } from "./types";

export async function applyChange(token: string, workspaceId: string, applicationId: string, change: FixChange): Promise<void> {
  if (change.kind === "binding_add") {
    await rest("POST", `/uflow/v2/users/${change.subject_id}/role-bindings`, {
      token,
      body: { workspace_id: workspaceId, role_id: change.role_id, scope_type: change.scope_type, scope_id: change.scope_id },
    });
    return;
  }
  await rest("PUT", `/svc/resource-servers/${applicationId}/tool-scope-map`, { token, body: { mappings: [{ tool_name: change.tool_name, scope_ids: change.scope_ids }] } });
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** "this would give 3 users 2 tools" (docs/access-explained.md, fix.impact). */
export function impactSentence(s: { users_gaining: number; users_losing: number; tools_gained: string[]; tools_lost: string[] }): string {
  const parts = [`this would give ${plural(s.users_gaining, "user")} ${plural(s.tools_gained.length, "tool")}`];
  if (s.users_losing > 0) parts.push(`take ${plural(s.tools_lost.length, "tool")} from ${plural(s.users_losing, "user")}`);
  return parts.join(" and ");
}
