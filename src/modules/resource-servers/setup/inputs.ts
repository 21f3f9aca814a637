// The inputs of the setup checklist, read in one place: a server's tools with their mapped scope
// ids, how many scopes it defines, and its access policy. SetupService reads them for one server
// (inside activation's transaction too) and the GraphQL graph for every server of an operation at
// once, through its tenant-scoped reader; both then judge them with buildChecklist.
import type { DbOrTx } from "../../../storage";
import type { AccessPolicy } from "../../../generated/sqlite/client";
import type { LoadedTool } from "../catalog/read";
import { TOOL_LIST } from "../catalog/schemas";
import type { ServerState } from "../state-machine";
import type { ChecklistFacts } from "./checklist";

/** What the reader needs: the root client, a transaction, or a tenant-scoped reader. */
export interface SetupInputsReader {
  tool: Pick<DbOrTx["tool"], "findMany">;
  scope: Pick<DbOrTx["scope"], "groupBy">;
  accessPolicy: Pick<DbOrTx["accessPolicy"], "findMany">;
}

export type SetupPolicy = AccessPolicy & { defaultRole: { name: string } | null };

export interface SetupInputs {
  /** Every tool of the server by name, stale ones included, with its mapped scope ids (sorted). */
  tools: LoadedTool[];
  scopeCount: number;
  policy: SetupPolicy | null;
}

/** The checklist inputs of each server in `rsIds` (of `tenantId`), in the order of `rsIds`; three queries however many. */
export async function readSetupInputs(reader: SetupInputsReader, tenantId: string, rsIds: readonly string[]): Promise<SetupInputs[]> {
  const where = { tenantId, resourceServerId: { in: [...rsIds] } };
  const [tools, scopeCounts, policies] = await Promise.all([
    reader.tool.findMany({ where, orderBy: TOOL_LIST.orderBy, include: { scopes: { select: { scope: { select: { key: true } } } } } }),
    reader.scope.groupBy({ by: ["resourceServerId"], where, _count: { _all: true } }),
    reader.accessPolicy.findMany({ where, include: { defaultRole: { select: { name: true } } } }),
  ]);
  return rsIds.map((id) => ({
    tools: tools.filter((t) => t.resourceServerId === id).map(({ scopes, ...tool }) => ({ ...tool, scopeKeys: scopes.map((s) => s.scope.key).sort() })),
    scopeCount: scopeCounts.find((c) => c.resourceServerId === id)?._count._all ?? 0,
    policy: policies.find((p) => p.resourceServerId === id) ?? null,
  }));
}

/** The facts buildChecklist judges: the server's state and its inputs. */
export function checklistFacts(state: ServerState, inputs: SetupInputs): ChecklistFacts {
  const p = inputs.policy;
  return {
    state,
    tools: inputs.tools,
    scopeCount: inputs.scopeCount,
    policy: p && { enabled: p.enabled, defaultRoleId: p.defaultRoleId, defaultRoleName: p.defaultRole?.name ?? null },
  };
}
