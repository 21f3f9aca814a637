// AI agents (/svc/sdkmgr/agents, docs/agents.md): registration, credentials, reach, disabling.
export { AgentService } from "./agent-service";
export { AGENT_KINDS, AGENT_LIST, createAgentSchema, updateAgentSchema, setAgentAccessSchema, listAgentsQuerySchema, type AgentKind, type CreateAgentInput, type UpdateAgentInput, type SetAgentAccessInput, type ListAgentsQuery } from "./schemas";
export { toAgentView, type AgentView, type CreatedAgentView, type AgentConnection } from "./views";
