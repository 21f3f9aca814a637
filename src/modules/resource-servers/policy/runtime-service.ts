// What resource-server runtimes call with Basic `rs_id:introspection_secret` (authenticated by the
// adapter against the in-memory registry): the compiled policy, and the push of their tool
// manifest. Plus the administrator's view of the last push (sdk-manifest-status).
import type { Db, Tx } from "../../../storage";
import type { Clock } from "../../../shared/clock";
import type { IdGenerator } from "../../../shared/ids";
import { badRequest } from "../../../shared/errors";
import { type Actor, assertCanRead } from "../../../shared/actor";
import type { RegisteredServer } from "../registry";
import type { ResourceServerService } from "../resource-server-service";
import { loadTools } from "../catalog/read";
import { compileDocument, notReadyReason, type CompiledPolicy, type PolicyCache } from "./policy-cache";
import { observeDefinitions } from "../catalog/definition-pins";
import type { DriftRecorder } from "../drift/record";
import { checkManifest, manifestWarnings, type ManifestTool } from "./manifest";

export class RuntimeService {
  constructor(
    private readonly db: Db,
    private readonly servers: ResourceServerService,
    private readonly cache: PolicyCache,
    private readonly drift: DriftRecorder,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /**
   * The prebuilt policy. A server registered a moment ago in another instance may be in the
   * registry before this cache has it: answer the deny-everything document rather than fail.
   */
  policy(rs: RegisteredServer): CompiledPolicy | Promise<CompiledPolicy> {
    const compiled = this.cache.get(rs.id);
    return compiled instanceof Promise ? compiled.then((c) => c ?? denyAll(rs)) : (compiled ?? denyAll(rs));
  }

  /**
   * Records the push. A valid manifest adds the tools the server does not know yet (source
   * `manifest`) and refreshes the descriptions of tools that came from a manifest; tools found by
   * scan or added by hand keep what those sources said. An invalid one changes no tool, is recorded
   * with its reasons (so the status shows why) and answers 400.
   */
  async pushManifest(rs: RegisteredServer, body: unknown) {
    const check = checkManifest(body);
    const now = this.clock.now();
    const scope = { tenantId: rs.tenantId, resourceServerId: rs.id };
    if (!check.valid) {
      // One statement, atomic on both databases (PostgreSQL: INSERT ... ON CONFLICT, since the
      // where is the primary key alone and nothing nested is selected).
      await this.db.sdkManifest.upsert({
        where: { resourceServerId: rs.id },
        create: { ...scope, pushedAt: now, tools: [], valid: false, validationErrors: check.errors, toolCount: check.toolCount },
        update: { pushedAt: now, tools: [], valid: false, validationErrors: check.errors, toolCount: check.toolCount },
      });
      throw badRequest(`manifest rejected: ${check.errors[0]}`, { validation_errors: check.errors });
    }
    // Runtime instances pushing at once (and scans, hand-made tools) take turns on the server's
    // row: each push sees the tools the previous one created, so none is created twice.
    const created = await this.db.$transaction(async (tx) => {
      await this.servers.lockForWrite(tx, rs.tenantId, rs.id);
      return this.applyManifest(tx, rs, check.tools, now);
    });
    const status = await this.statusOf(rs.tenantId, rs.id);
    return { ...status, created_tools: created.sort() };
  }

  private async applyManifest(tx: Tx, rs: RegisteredServer, tools: ManifestTool[], now: Date): Promise<string[]> {
    const existing = new Map((await tx.tool.findMany({ where: { resourceServerId: rs.id, tenantId: rs.tenantId }, select: { id: true, name: true, source: true } })).map((t) => [t.name, t]));
    const fresh = tools.filter((t) => !existing.has(t.name));
    if (fresh.length > 0) {
      await tx.tool.createMany({
        data: fresh.map((t) => ({
          id: this.ids.uuid(),
          tenantId: rs.tenantId,
          resourceServerId: rs.id,
          name: t.name,
          title: t.title ?? null,
          description: t.description ?? null,
          inputSchema: (t.input_schema as object | null | undefined) ?? undefined,
          annotations: (t.annotations as object | null | undefined) ?? undefined,
          source: "manifest",
          createdAt: now,
          updatedAt: now,
        })),
      });
    }
    for (const t of tools) {
      const row = existing.get(t.name);
      if (row?.source !== "manifest") continue;
      await tx.tool.update({
        where: { id: row.id },
        data: { title: t.title ?? null, description: t.description ?? null, inputSchema: (t.input_schema as object | null | undefined) ?? undefined, updatedAt: now },
      });
    }
    // The runtime's live definitions: pinned before activation, drift afterwards (catalog/definition-pins.ts).
    // The state as of now (under the server's lock), not the registry's cached copy.
    const server = await tx.resourceServer.findUniqueOrThrow({ where: { id: rs.id }, select: { id: true, tenantId: true, state: true } });
    await observeDefinitions(tx, this.drift, { server, actorId: null, at: now }, tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.input_schema })));
    const record = { pushedAt: now, tools: tools.map((t) => t.name), valid: true, validationErrors: [], toolCount: tools.length };
    await tx.sdkManifest.upsert({ where: { resourceServerId: rs.id }, create: { tenantId: rs.tenantId, resourceServerId: rs.id, ...record }, update: record });
    return fresh.map((t) => t.name);
  }

  async manifestStatus(actor: Actor, rsId: string) {
    assertCanRead(actor);
    await this.servers.findLive(this.db, actor, rsId);
    return this.statusOf(actor.tenantId, rsId);
  }

  private async statusOf(tenantId: string, rsId: string) {
    const row = await this.db.sdkManifest.findFirst({ where: { resourceServerId: rsId, tenantId } });
    if (!row) {
      return { rs_id: rsId, pushed: false, pushed_at: null, valid: null, tool_count: 0, validation_errors: [], warnings: [], unmapped_tools: [], missing_from_manifest: [] };
    }
    const diff = row.valid ? manifestWarnings(row.tools as string[], await loadTools(this.db, tenantId, rsId)) : { unmapped_tools: [], missing_from_manifest: [], warnings: [] };
    return {
      rs_id: rsId,
      pushed: true,
      pushed_at: row.pushedAt.toISOString(),
      valid: row.valid,
      tool_count: row.toolCount,
      validation_errors: row.validationErrors as string[],
      ...diff,
    };
  }
}

function denyAll(rs: RegisteredServer): CompiledPolicy {
  return compileDocument({ rs_id: rs.id, state: rs.state, generation: 0, policy_complete: false, reason: notReadyReason(rs.state), scope_matrix: {}, definition_hashes: {}, drift_events: [] });
}
