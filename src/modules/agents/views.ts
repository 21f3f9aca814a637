// Wire view of an agent (snake_case). Its client secret appears once, in the creation and
// rotation answers (agent-service.ts), never here.
import type { Agent } from "../../generated/sqlite/client";

export interface AgentConnection {
  resource_server_id: string;
  resource_server_name: string;
  /** The RFC 8707 `resource` the agent asks tokens for. */
  resource_url: string;
  roles: { role_id: string; role_name: string }[];
}

export function toAgentView(a: Agent, facts: { connections: AgentConnection[]; lastActivityAt: Date | null; clientStatus: string }) {
  return {
    id: a.id,
    workspace_id: a.tenantId,
    name: a.name,
    kind: a.kind,
    description: a.description,
    owner_user_id: a.ownerUserId,
    status: a.status,
    /** The OAuth client it gets tokens with (client_credentials, Basic). */
    client_id: a.clientId,
    client_status: facts.clientStatus,
    /** The servers it may use and the roles it holds on each. */
    connections: facts.connections,
    /** Its last token request (written in batches, docs/decisions/0006-hot-paths-answer-from-memory.md). */
    last_activity_at: facts.lastActivityAt?.toISOString() ?? null,
    created_at: a.createdAt.toISOString(),
    disabled_at: a.disabledAt?.toISOString() ?? null,
  };
}
export type AgentView = ReturnType<typeof toAgentView>;
export type CreatedAgentView = AgentView & { client_secret: string };
