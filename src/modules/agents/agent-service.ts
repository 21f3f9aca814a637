// AI agents of a workspace (/svc/sdkmgr/agents, docs/agents.md, docs/decisions/0040-agents.md).
// An agent is a name, a kind (autonomous | assistant), an owner and a description around a
// workspace-wide pre-registered client (its credentials: client_credentials with a secret shown
// once) whose service account holds roles on the servers it may use. Disabling it disables the
// client: no new token, and its tokens introspect inactive from the commit on, on every instance
// (the client's hot-path entry is dropped by the unit of work and by NOTIFY).
import { recordAuditEvent, type Db, type DbOrTx } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { badRequest, conflict, notFound } from "../../shared/errors";
import { type Actor, assertCanRead, assertCanWrite } from "../../shared/actor";
import type { Page, PageRequest } from "../../shared/pagination";
import type { Agent } from "../../generated/sqlite/client";
import { isUniqueViolation } from "../../storage";
import type { WorkspaceClients } from "../clients";
import type { BindingService } from "../rbac";
import { AUDIT_ACTIONS } from "../audit";
import { AGENT_LIST, type CreateAgentInput, type ListAgentsQuery, type SetAgentAccessInput, type UpdateAgentInput } from "./schemas";
import { toAgentView, type AgentConnection, type AgentView, type CreatedAgentView } from "./views";

export class AgentService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly clients: WorkspaceClients,
    private readonly bindings: Pick<BindingService, "replaceServiceAccountBindings">,
  ) {}

  async create(actor: Actor, input: CreateAgentInput): Promise<CreatedAgentView> {
    assertCanWrite(actor);
    const now = this.clock.now();
    try {
      const { agent, secret } = await this.db.$transaction(async (tx) => {
        if (input.owner_user_id) await this.assertMember(tx, actor, input.owner_user_id);
        const { client, secret } = await this.clients.create(tx, { tenantId: actor.tenantId, name: `agent: ${input.name}`, description: input.description ?? null });
        const agent = await tx.agent.create({
          data: {
            id: this.ids.uuid(),
            tenantId: actor.tenantId,
            name: input.name,
            description: input.description ?? null,
            kind: input.kind,
            ownerUserId: input.owner_user_id ?? null,
            status: "active",
            clientRowId: client.id,
            clientId: client.clientId,
            createdAt: now,
            updatedAt: now,
            createdBy: actor.userId,
          },
        });
        await this.bindings.replaceServiceAccountBindings(tx, actor, client.id, accessOf(input.access));
        return { agent, secret };
      });
      return { ...(await this.view(this.db, agent)), client_secret: secret };
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict(`an agent named ${input.name} already exists in this workspace`);
      throw e;
    }
  }

  async list(actor: Actor, query: ListAgentsQuery & PageRequest): Promise<Page<AgentView>> {
    assertCanRead(actor);
    const rows = await this.db.agent.findMany({
      where: AGENT_LIST.where({ tenantId: actor.tenantId, ...(query.status ? { status: query.status } : {}) }, query.cursor),
      orderBy: AGENT_LIST.orderBy,
      take: query.limit + 1,
    });
    const { rows: pageRows, next_cursor } = AGENT_LIST.slice(rows, query.limit);
    const items = await this.views(this.db, pageRows);
    return { items, count: items.length, next_cursor };
  }

  async get(actor: Actor, id: string): Promise<AgentView> {
    assertCanRead(actor);
    return this.view(this.db, await this.find(this.db, actor, id));
  }

  async update(actor: Actor, id: string, input: UpdateAgentInput): Promise<AgentView> {
    assertCanWrite(actor);
    try {
      const agent = await this.db.$transaction(async (tx) => {
        await this.find(tx, actor, id);
        if (input.owner_user_id) await this.assertMember(tx, actor, input.owner_user_id);
        return tx.agent.update({
          where: { id },
          data: { name: input.name, kind: input.kind, description: input.description, ownerUserId: input.owner_user_id, updatedAt: this.clock.now() },
        });
      });
      return this.view(this.db, agent);
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict(`an agent named ${input.name} already exists in this workspace`);
      throw e;
    }
  }

  /** Replaces the servers and roles the agent may use (its service account's bindings). */
  async setAccess(actor: Actor, id: string, input: SetAgentAccessInput): Promise<AgentView> {
    assertCanWrite(actor);
    const agent = await this.db.$transaction(async (tx) => {
      const agent = await this.find(tx, actor, id);
      await this.bindings.replaceServiceAccountBindings(tx, actor, agent.clientRowId, accessOf(input.access));
      await recordAuditEvent(tx, { action: AUDIT_ACTIONS.agentAccessReplaced, target: { type: "agent", id }, detail: { access: input.access } });
      return agent;
    });
    return this.view(this.db, agent);
  }

  /** Disables the agent at once: its client gets no token, and every token it holds introspects inactive. */
  async disable(actor: Actor, id: string): Promise<AgentView> {
    return this.setEnabled(actor, id, false);
  }

  async enable(actor: Actor, id: string): Promise<AgentView> {
    return this.setEnabled(actor, id, true);
  }

  /** A new client secret (the old one stops working at once), shown in this answer only. */
  async rotateSecret(actor: Actor, id: string): Promise<CreatedAgentView> {
    assertCanWrite(actor);
    const { agent, secret } = await this.db.$transaction(async (tx) => {
      const agent = await this.find(tx, actor, id);
      const secret = await this.clients.rotateSecret(tx, actor.tenantId, agent.clientRowId);
      await recordAuditEvent(tx, { action: AUDIT_ACTIONS.clientSecretRotated, target: { type: "client", id: agent.clientId }, detail: { agent_id: id } });
      return { agent, secret };
    });
    return { ...(await this.view(this.db, agent)), client_secret: secret };
  }

  /** Deletes the agent; its client is revoked and its bindings removed. */
  async remove(actor: Actor, id: string): Promise<void> {
    assertCanWrite(actor);
    await this.db.$transaction(async (tx) => {
      const agent = await this.find(tx, actor, id);
      await this.bindings.replaceServiceAccountBindings(tx, actor, agent.clientRowId, []);
      await this.clients.revoke(tx, actor.tenantId, agent.clientRowId);
      await tx.agent.delete({ where: { id } });
    });
  }

  private async setEnabled(actor: Actor, id: string, enabled: boolean): Promise<AgentView> {
    assertCanWrite(actor);
    const agent = await this.db.$transaction(async (tx) => {
      const current = await this.find(tx, actor, id);
      if ((current.status === "active") === enabled) return current;
      const now = this.clock.now();
      await this.clients.setEnabled(tx, actor.tenantId, current.clientRowId, enabled);
      const updated = await tx.agent.update({ where: { id }, data: { status: enabled ? "active" : "disabled", disabledAt: enabled ? null : now, updatedAt: now } });
      await recordAuditEvent(tx, { action: enabled ? AUDIT_ACTIONS.agentEnabled : AUDIT_ACTIONS.agentDisabled, target: { type: "agent", id } });
      return updated;
    });
    return this.view(this.db, agent);
  }

  private async find(tx: DbOrTx, actor: Actor, id: string): Promise<Agent> {
    const agent = await tx.agent.findFirst({ where: { id, tenantId: actor.tenantId } });
    if (!agent) throw notFound("agent");
    return agent;
  }

  private async assertMember(tx: DbOrTx, actor: Actor, userId: string): Promise<void> {
    const m = await tx.membership.findUnique({ where: { tenantId_userId: { tenantId: actor.tenantId, userId } }, select: { id: true } });
    if (!m) throw badRequest(`owner_user_id: no member ${userId} in this workspace`);
  }

  private async view(db: DbOrTx, agent: Agent): Promise<AgentView> {
    return (await this.views(db, [agent]))[0]!;
  }

  /** Views of several agents with three queries whatever their number: their clients, bindings, and the servers and roles named. */
  private async views(db: DbOrTx, agents: readonly Agent[]): Promise<AgentView[]> {
    if (agents.length === 0) return [];
    const tenantId = agents[0]!.tenantId;
    const clientRowIds = agents.map((a) => a.clientRowId);
    const [clients, bindings] = await Promise.all([
      db.client.findMany({ where: { id: { in: clientRowIds }, tenantId }, select: { id: true, status: true, lastUsedAt: true } }),
      db.roleBinding.findMany({
        where: { tenantId, subjectType: "service_account", subjectId: { in: clientRowIds } },
        include: { role: { select: { name: true } } },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      }),
    ]);
    const serverIds = [...new Set(bindings.map((b) => b.scopeId).filter((s): s is string => s !== null))];
    const servers = new Map((await db.resourceServer.findMany({ where: { id: { in: serverIds }, tenantId, deletedAt: null }, select: { id: true, name: true, resourceUrl: true } })).map((s) => [s.id, s]));
    return agents.map((agent) => {
      const client = clients.find((c) => c.id === agent.clientRowId);
      const connections = new Map<string, AgentConnection>();
      for (const b of bindings.filter((b) => b.subjectId === agent.clientRowId)) {
        const server = b.scopeId ? servers.get(b.scopeId) : undefined;
        if (!server) continue;
        const c = connections.get(server.id) ?? { resource_server_id: server.id, resource_server_name: server.name, resource_url: server.resourceUrl, roles: [] };
        c.roles.push({ role_id: b.roleId, role_name: b.role.name });
        connections.set(server.id, c);
      }
      return toAgentView(agent, { connections: [...connections.values()], lastActivityAt: client?.lastUsedAt ?? null, clientStatus: client?.status ?? "revoked" });
    });
  }
}

const accessOf = (access: CreateAgentInput["access"]) => access.map((a) => ({ resourceServerId: a.resource_server_id, roleId: a.role_id }));
