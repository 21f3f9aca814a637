// Tools, scopes and the tool-to-scope mapping of one resource server. A write to these rows drops
// the server's compiled policy after commit (the unit of work,
// docs/decisions/0001-per-entry-caches.md); post-activation changes write their drift events in
// the same transaction (scope_deleted, tool_unmapped). Every write transaction starts with
// servers.lockForWrite, so writers of one server's rows take turns (see there).
import type { Db, DbOrTx, Tx } from "../../../storage";
import { isUniqueViolation, recordAuditEvent } from "../../../storage";
import { AUDIT_ACTIONS } from "../../audit";
import type { Clock } from "../../../shared/clock";
import type { IdGenerator } from "../../../shared/ids";
import { badRequest, conflict, notFound } from "../../../shared/errors";
import { type Actor, assertCanRead, assertCanWrite } from "../../../shared/actor";
import type { ResourceServerService } from "../resource-server-service";
import type { DriftRecorder } from "../drift/record";
import { FIRST_PAGE, type Page, type PageRequest } from "../../../shared/pagination";
import { loadScopes, loadScopesPage, loadTools, loadToolsPage, type LoadedTool } from "./read";
import { pinnedDefinition } from "./definition-pins";
import { SCOPE_LIST, TOOL_LIST, type CreateScopeInput, type CreateToolInput, type MarkPublicInput, type ToolScopeMapInput } from "./schemas";
import { toScopeMatrixView, toScopeView, toToolView, type ScopeMatrixView, type ScopeView, type ToolView } from "./views";


/** Runs inside the transaction that deletes scope `scopeKey` of server `rsId`. */
export type ScopeDeletedHook = (tx: DbOrTx, tenantId: string, rsId: string, scopeKey: string) => Promise<void>;

export class CatalogService {
  private scopeDeletedHooks: ScopeDeletedHook[] = [];

  constructor(
    private readonly db: Db,
    private readonly servers: ResourceServerService,
    private readonly drift: DriftRecorder,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /** One page of the server's tools, by name (TOOL_LIST). */
  async listTools(actor: Actor, rsId: string, page: PageRequest = FIRST_PAGE): Promise<Page<ToolView>> {
    assertCanRead(actor);
    await this.servers.findLive(this.db, actor, rsId);
    return TOOL_LIST.page(await loadToolsPage(this.db, actor.tenantId, rsId, page), page.limit, toToolView);
  }

  /** One page of the server's scopes, by scope id (SCOPE_LIST). */
  async listScopes(actor: Actor, rsId: string, page: PageRequest = FIRST_PAGE): Promise<Page<ScopeView>> {
    assertCanRead(actor);
    await this.servers.findLive(this.db, actor, rsId);
    return SCOPE_LIST.page(await loadScopesPage(this.db, actor.tenantId, rsId, page), page.limit, (s) => toScopeView(s));
  }

  async scopeMatrix(actor: Actor, rsId: string): Promise<ScopeMatrixView> {
    assertCanRead(actor);
    const rs = await this.servers.findLive(this.db, actor, rsId);
    const [tools, scopes] = await Promise.all([loadTools(this.db, actor.tenantId, rsId), loadScopes(this.db, actor.tenantId, rsId)]);
    return toScopeMatrixView(rs, tools, scopes);
  }

  /** A tool added by hand (source `manual`): never marked stale by a scan that does not list it. */
  async createTool(actor: Actor, rsId: string, input: CreateToolInput): Promise<ToolView> {
    assertCanWrite(actor);
    const now = this.clock.now();
    try {
      const tool = await this.db.$transaction(async (tx) => {
        await this.servers.lockForWrite(tx, actor.tenantId, rsId);
        await this.servers.findLive(tx, actor, rsId);
        return tx.tool.create({
          data: {
            id: this.ids.uuid(),
            tenantId: actor.tenantId,
            resourceServerId: rsId,
            name: input.name,
            title: input.title ?? null,
            description: input.description ?? null,
            inputSchema: (input.input_schema as object | undefined) ?? undefined,
            source: "manual",
            createdAt: now,
            updatedAt: now,
          },
        });
      });
      return toToolView({ ...tool, scopeKeys: [] });
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict(`a tool named ${JSON.stringify(input.name)} already exists on this server (tool names are unique per server)`);
      throw e;
    }
  }

  /**
   * Public means "no scope needed" (matrix entry []). Opening a tool needs the typed confirmation;
   * `is_public: false` closes it again and its existing scope mappings apply once more.
   */
  /**
   * Opens (or closes) a tool to every caller with a token for the server. The answer names every
   * public tool of the server after the change, so the widening is never silent (the activation
   * preview lists them too); a `confirm` that is sent must repeat the tool's name.
   */
  async setPublic(actor: Actor, rsId: string, toolId: string, input: MarkPublicInput): Promise<ToolView & { public_tools: string[] }> {
    assertCanWrite(actor);
    const publicTools = await this.db.$transaction(async (tx) => {
      const tool = await this.lockedTool(tx, actor, rsId, toolId);
      if (input.confirm !== undefined && input.confirm !== tool.name) throw badRequest("confirm: must repeat the tool name exactly");
      await tx.tool.update({ where: { id: tool.id }, data: { isPublic: input.is_public, updatedAt: this.clock.now() } });
      const open = await tx.tool.findMany({ where: { tenantId: actor.tenantId, resourceServerId: rsId, isPublic: true }, select: { name: true }, orderBy: { name: "asc" } });
      return open.map((t) => t.name);
    });
    return { ...toToolView(await this.loadTool(actor, rsId, toolId)), public_tools: publicTools };
  }

  async createScope(actor: Actor, rsId: string, input: CreateScopeInput): Promise<ScopeView> {
    assertCanWrite(actor);
    try {
      const scope = await this.db.$transaction(async (tx) => {
        await this.servers.lockForWrite(tx, actor.tenantId, rsId); // scopes_supported is read, then rewritten
        const rs = await this.servers.findLive(tx, actor, rsId);
        const created = await tx.scope.create({
          data: { id: this.ids.uuid(), tenantId: actor.tenantId, resourceServerId: rsId, key: input.id, name: input.name, description: input.description ?? null, createdAt: this.clock.now() },
        });
        await this.syncScopesSupported(tx, rs.id, [...(rs.scopesSupported as string[]).filter((k) => k !== input.id), input.id]);
        return created;
      });
      return toScopeView(scope, 0);
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict(`the scope ${JSON.stringify(input.id)} already exists on this server`);
      throw e;
    }
  }

  /**
   * Deletes a scope. Tools mapped to it lose that mapping (and are denied when it was their only
   * scope); role grants of the scope on this server go too (rbac's hook), so re-creating a scope with the same id
   * later does not silently revive old grants. When the server is ready: one `scope_deleted` event.
   */
  /**
   * Other modules that keep a copy of scope ids (roles' grants, clients' allowed_scopes) clean up
   * in the deleting transaction, through the hooks wired in app.ts (this module owns neither
   * table), so re-creating a scope with the same id later gives nothing back silently.
   */
  onScopeDeleted(hook: ScopeDeletedHook): void {
    this.scopeDeletedHooks.push(hook);
  }

  async deleteScope(actor: Actor, rsId: string, scopeKey: string): Promise<void> {
    assertCanWrite(actor);
    const now = this.clock.now();
    await this.db.$transaction(async (tx) => {
      await this.servers.lockForWrite(tx, actor.tenantId, rsId);
      const rs = await this.servers.findLive(tx, actor, rsId);
      const scope = await tx.scope.findFirst({ where: { resourceServerId: rsId, tenantId: actor.tenantId, key: scopeKey } });
      if (!scope) throw notFound("scope");
      const toolsAffected = await tx.toolScope.count({ where: { scopeId: scope.id } });
      await tx.scope.delete({ where: { id: scope.id } }); // cascades to its ToolScope rows
      await this.syncScopesSupported(tx, rs.id, (rs.scopesSupported as string[]).filter((k) => k !== scopeKey));
      await this.drift.record(tx, { server: rs, actorId: actor.userId, at: now }, "scope_deleted", [
        { prior_scope_id: scope.key, prior_scope_name: scope.name, tools_affected: toolsAffected },
      ]);
      for (const hook of this.scopeDeletedHooks) await hook(tx, actor.tenantId, rsId, scopeKey);
    });
  }

  /**
   * Bulk mapping, all-or-nothing: every tool and scope named must exist, or nothing changes and the
   * 400 names the first unknown one. Each listed tool's scopes are replaced by `scope_ids`; an empty
   * list unmaps the tool (it does not make it public, which needs the typed confirmation). Giving a
   * public tool scopes closes it (tightening needs no confirmation). After activation, every removed
   * (tool, scope) pair is a `tool_unmapped` event.
   */
  async setToolScopeMap(actor: Actor, rsId: string, input: ToolScopeMapInput): Promise<ScopeMatrixView> {
    assertCanWrite(actor);
    const now = this.clock.now();
    await this.db.$transaction(async (tx) => {
      // Before the reads: the plan below is a diff against the current mapping.
      await this.servers.lockForWrite(tx, actor.tenantId, rsId);
      const rs = await this.servers.findLive(tx, actor, rsId);
      // Sequential: one transaction is one connection.
      const tools = await loadTools(tx, actor.tenantId, rsId);
      const scopes = await loadScopes(tx, actor.tenantId, rsId);
      const plan = planMapping(input, tools, new Map(scopes.map((s) => [s.key, s.id])));
      const removedPairs: { tool_name: string; prior_scope_id: string }[] = [];
      for (const { tool, desired } of plan) {
        const removed = tool.scopeKeys.filter((k) => !desired.has(k));
        const added = [...desired].filter((k) => !tool.scopeKeys.includes(k));
        if (removed.length > 0) {
          const removedIds = removed.map((k) => scopes.find((s) => s.key === k)!.id);
          await tx.toolScope.deleteMany({ where: { toolId: tool.id, scopeId: { in: removedIds } } });
          for (const k of removed) removedPairs.push({ tool_name: tool.name, prior_scope_id: k });
        }
        if (added.length > 0) {
          await tx.toolScope.createMany({ data: added.map((k) => ({ toolId: tool.id, scopeId: scopes.find((s) => s.key === k)!.id, tenantId: actor.tenantId, resourceServerId: rsId })) });
        }
        if (tool.isPublic && desired.size > 0) await tx.tool.update({ where: { id: tool.id }, data: { isPublic: false, updatedAt: now } });
      }
      await this.drift.record(tx, { server: rs, actorId: actor.userId, at: now }, "tool_unmapped", removedPairs);
      await recordAuditEvent(tx, { action: AUDIT_ACTIONS.toolScopeMapReplaced, target: { type: "resource_server", id: rsId }, detail: { tools: plan.length, unmapped: removedPairs.length } });
    });
    return this.scopeMatrix(actor, rsId);
  }

  /**
   * Re-approves the tool's definition as last reported (catalog/definition-pins.ts): the pin takes
   * the live hash, the next sdk-policy carries it, and the SDK allows the tool again.
   */
  async approveDefinition(actor: Actor, rsId: string, toolId: string): Promise<ToolView> {
    assertCanWrite(actor);
    await this.db.$transaction(async (tx) => {
      const tool = await this.lockedTool(tx, actor, rsId, toolId);
      if (tool.liveDefinitionHash === null) throw conflict("no scan or manifest has reported this tool's definition yet: there is nothing to approve");
      if (tool.liveDefinitionHash !== tool.approvedDefinitionHash) {
        // The row holds the definition last reported (the live one): that is what is approved now.
        const approvedDefinition = pinnedDefinition({ description: tool.description, inputSchema: tool.inputSchema });
        await tx.tool.update({ where: { id: tool.id }, data: { approvedDefinitionHash: tool.liveDefinitionHash, approvedDefinition, updatedAt: this.clock.now() } });
      }
    });
    return toToolView(await this.loadTool(actor, rsId, toolId));
  }

  /** The tool of a live server, read after taking the server's write turn (see servers.lockForWrite); 404s. */
  private async lockedTool(tx: Tx, actor: Actor, rsId: string, toolId: string) {
    await this.servers.lockForWrite(tx, actor.tenantId, rsId);
    await this.servers.findLive(tx, actor, rsId);
    const tool = await tx.tool.findFirst({ where: { id: toolId, resourceServerId: rsId, tenantId: actor.tenantId } });
    if (!tool) throw notFound("tool");
    return tool;
  }

  private async loadTool(actor: Actor, rsId: string, toolId: string): Promise<LoadedTool> {
    const tool = (await loadTools(this.db, actor.tenantId, rsId)).find((t) => t.id === toolId);
    if (!tool) throw notFound("tool");
    return tool;
  }

  /** scopes_supported of the server mirrors its scope records. */
  private async syncScopesSupported(tx: Tx, rsId: string, keys: string[]): Promise<void> {
    await tx.resourceServer.update({ where: { id: rsId }, data: { scopesSupported: keys, updatedAt: this.clock.now() } });
  }
}

/** Resolves a mapping request against the server's tools and scopes, or throws the 400. */
function planMapping(input: ToolScopeMapInput, tools: LoadedTool[], scopeIds: Map<string, string>) {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const byId = new Map(tools.map((t) => [t.id, t]));
  const seen = new Set<string>();
  return input.mappings.map((m, i) => {
    const tool = m.tool_id !== undefined ? byId.get(m.tool_id) : byName.get(m.tool_name!);
    if (!tool) {
      const field = m.tool_id !== undefined ? "tool_id" : "tool_name";
      throw badRequest(`mappings.${i}.${field}: unknown tool ${JSON.stringify(m.tool_id ?? m.tool_name)} on this server`);
    }
    if (seen.has(tool.id)) throw badRequest(`mappings.${i}: the tool ${JSON.stringify(tool.name)} is listed twice`);
    seen.add(tool.id);
    const unknown = m.scope_ids.find((k) => !scopeIds.has(k));
    if (unknown !== undefined) throw badRequest(`mappings.${i}.scope_ids: unknown scope ${JSON.stringify(unknown)} on this server`);
    return { tool, desired: new Set(m.scope_ids) };
  });
}
