// Wire views of tools, scopes and the admin scope matrix. The spec names a tool by `tool_id` and
// `tool_name` and a scope by its string `id`; the internal scope UUID never leaves the service.
import type { Scope } from "../../../generated/sqlite/client";
import type { LoadedTool } from "./read";
import { compileScopeMatrix, deniedTools } from "../policy/compile";

export function toToolView(t: LoadedTool) {
  return {
    tool_id: t.id,
    tool_name: t.name,
    title: t.title,
    description: t.description,
    input_schema: (t.inputSchema as Record<string, unknown> | null) ?? null,
    annotations: (t.annotations as Record<string, unknown> | null) ?? null,
    source: t.source,
    is_public: t.isPublic,
    stale: t.stale,
    last_seen_generation: t.lastSeenGeneration,
    scope_ids: t.scopeKeys,
    /** The pinned definition (catalog/definition-pins.ts) and the last reported one; they differ until re-approved. */
    definition_hash: t.approvedDefinitionHash,
    live_definition_hash: t.liveDefinitionHash,
    definition_changed: t.liveDefinitionHash !== null && t.approvedDefinitionHash !== null && t.liveDefinitionHash !== t.approvedDefinitionHash,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}
export type ToolView = ReturnType<typeof toToolView>;

export function toScopeView(s: Scope, toolCount?: number) {
  return {
    id: s.key,
    name: s.name,
    description: s.description,
    ...(toolCount === undefined ? {} : { tool_count: toolCount }),
    created_at: s.createdAt.toISOString(),
  };
}
export type ScopeView = ReturnType<typeof toScopeView>;

/**
 * The full grid for the admin: every tool by every scope (`grid[tool][scope]` true when mapped),
 * each tool's source, public flag and staleness, and the compiled `scope_matrix` that the runtime
 * enforces once the server is ready (same function as the runtime policy).
 */
export function toScopeMatrixView(rs: { id: string; state: string; scanGeneration: number }, tools: LoadedTool[], scopes: Scope[]) {
  const counts = new Map<string, number>();
  for (const t of tools) for (const k of t.scopeKeys) counts.set(k, (counts.get(k) ?? 0) + 1);
  const grid = Object.fromEntries(tools.map((t) => [t.name, Object.fromEntries(scopes.map((s) => [s.key, t.scopeKeys.includes(s.key)]))]));
  return {
    rs_id: rs.id,
    state: rs.state,
    scan_generation: rs.scanGeneration,
    scopes: scopes.map((s) => toScopeView(s, counts.get(s.key) ?? 0)),
    tools: tools.map((t) => ({
      tool_id: t.id,
      tool_name: t.name,
      source: t.source,
      is_public: t.isPublic,
      stale: t.stale,
      last_seen_generation: t.lastSeenGeneration,
      scope_ids: t.scopeKeys,
    })),
    grid,
    scope_matrix: compileScopeMatrix(tools),
    denied_tools: deniedTools(tools),
  };
}
export type ScopeMatrixView = ReturnType<typeof toScopeMatrixView>;
