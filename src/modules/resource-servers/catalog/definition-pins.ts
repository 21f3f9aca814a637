// Tool-definition pinning. A tool's definition (name, description, input schema) is what an agent
// reads before calling it; a server that changes it after an administrator mapped the tool can
// change what the agent does ("rug pull"). So each tool keeps two hashes (src/sdk/definition-hash.ts,
// the same function the SDK runs on its live tools):
//   liveDefinitionHash     - as last reported by a scan or a manifest push
//   approvedDefinitionHash - the pin: set by any report before the server is `ready` (setting it up
//                            is the approval) or when none exists yet, and afterwards only by an
//                            administrator's re-approval (CatalogService.approveDefinition)
// The sdk-policy carries the pin of each mapped tool; the SDK denies a tool whose live definition
// differs. A report on a `ready` server that differs from the pin records one drift event
// `tool_definition_changed` per new live hash (a server restarted ten times records it once).
import type { Tx } from "../../../storage";
import { toolDefinitionHash } from "../../../sdk/definition-hash";
import type { DriftRecorder, DriftContext } from "../drift/record";
import { recordsDrift } from "../state-machine";

export interface ReportedDefinition {
  name: string;
  description?: string | null;
  inputSchema?: unknown;
}

/** What the pin stands for, kept beside its hash for the review of a later change (the cockpit's diff). */
export function pinnedDefinition(t: { description?: string | null; inputSchema?: unknown }): { description: string | null; input_schema: object | null } {
  // A JSON Schema is an object (the scan and the manifest validate it as one).
  return { description: t.description ?? null, input_schema: (t.inputSchema as object | null | undefined) ?? null };
}

/** Called inside the transaction that writes the report (scan result or manifest), after the tool rows exist. */
export async function observeDefinitions(tx: Tx, drift: DriftRecorder, ctx: DriftContext, reported: readonly ReportedDefinition[]): Promise<void> {
  if (reported.length === 0) return;
  const rows = await tx.tool.findMany({
    where: { resourceServerId: ctx.server.id, tenantId: ctx.server.tenantId, name: { in: reported.map((t) => t.name) } },
    select: { id: true, name: true, approvedDefinitionHash: true, liveDefinitionHash: true },
  });
  const byName = new Map(rows.map((r) => [r.name, r]));
  const pinning = !recordsDrift(ctx.server.state);
  const changed: { tool_name: string; approved_hash: string; live_hash: string }[] = [];
  for (const t of reported) {
    const row = byName.get(t.name);
    if (!row) continue;
    const live = toolDefinitionHash(t);
    const pin = pinning || row.approvedDefinitionHash === null ? live : row.approvedDefinitionHash;
    if (live === row.liveDefinitionHash && pin === row.approvedDefinitionHash) continue;
    if (pin !== live && live !== row.liveDefinitionHash) changed.push({ tool_name: t.name, approved_hash: pin, live_hash: live });
    const repinned = pin !== row.approvedDefinitionHash;
    await tx.tool.update({ where: { id: row.id }, data: { liveDefinitionHash: live, approvedDefinitionHash: pin, ...(repinned ? { approvedDefinition: pinnedDefinition(t) } : {}) } });
  }
  await drift.record(tx, ctx, "tool_definition_changed", changed);
}
