// May this subject call this tool on this resource server now? The runtime's question, answered for
// an AuthZEN caller (a gateway or an MCP server authenticated with its rs_id secret) from exactly
// the pieces the runtime itself uses, so the answer can never disagree with enforcement:
//   - the compiled policy that GET .../sdk-policy serves (resource-servers PolicyCache), judged with
//     the SDK's tool rule (toolgate/sdk tool-policy.ts `decideTool`: tool absent from the matrix ->
//     denied; pinned definition changed -> denied; [] -> public; else one of the listed scopes);
//   - THE scope resolver introspection uses (rbac ScopeResolver.allowedScopes / userScopes);
//   - introspection's client rule (tokens `clientMayReach`: approved, bound to this server or
//     connected to it with an approved connection).
// The answer is a decision plus a coarse reason (docs/decisions/0029-authzen-decision-endpoint.md):
// the caller learns which stage refused, never which role, binding or scope was involved.
import type { RegisteredServer } from "../resource-servers";
import type { CompiledPolicy } from "../resource-servers";
import { clientMayReach, effectiveScope, parseScope, type ConnectionLookup, type TokenClient } from "../tokens";
import type { ScopeResolver } from "../rbac";

/** Coarse reasons, in the order the checks run (the simulation's check vocabulary, coarsened). */
export const DENY_REASONS = [
  "unsupported_request", // not a tool call on a tool of this server (action or resource type unknown)
  "subject_inactive", // unknown user or client, not an active member, suspended, client not approved
  "client_not_connected", // the user acts through a client that may not reach this server
  "application_not_launched", // the server is not ready: every tool is denied
  "tool_not_mapped", // the tool has no scope mapping (or does not exist): denied to everyone
  "tool_definition_changed", // the live definition the caller reports differs from the pinned one
  "scope_not_granted", // the subject holds none of the scopes the tool needs
] as const;
export type DenyReason = (typeof DENY_REASONS)[number];

export type ToolDecision = { decision: true } | { decision: false; reason: DenyReason };

export interface ToolQuestion {
  subject: { type: "user" | "client"; id: string };
  tool: string;
  /** The OAuth client a user acts through (introspection bounds a user by the client's allowed scopes). */
  clientId?: string;
  /** The runtime's live definition hash of the tool (toolgate/sdk toolDefinitionHash). */
  definitionHash?: string;
  /** The scopes of the caller's token (RFC 6749 scope string): the answer is then bounded by them, as introspection bounds a token. */
  tokenScope?: string;
}

export interface DeciderDeps {
  policy(rs: RegisteredServer): CompiledPolicy | Promise<CompiledPolicy>;
  resolver: ScopeResolver;
  clients: { get(clientId: string): TokenClient | null | Promise<TokenClient | null> };
  connections: ConnectionLookup;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const deny = (reason: DenyReason): ToolDecision => ({ decision: false, reason });

export class ToolAccessDecider {
  constructor(private readonly deps: DeciderDeps) {}

  async decide(rs: RegisteredServer, q: ToolQuestion): Promise<ToolDecision> {
    const held = await this.heldScopes(rs, q);
    if (typeof held === "string") return deny(held);
    const { document } = await this.deps.policy(rs);
    if (!document.policy_complete) return deny("application_not_launched");
    const needs = Object.hasOwn(document.scope_matrix, q.tool) ? document.scope_matrix[q.tool] : undefined;
    if (needs === undefined) return deny("tool_not_mapped");
    const pinned = Object.hasOwn(document.definition_hashes, q.tool) ? document.definition_hashes[q.tool] : undefined;
    if (pinned !== undefined && q.definitionHash !== undefined && q.definitionHash !== pinned) return deny("tool_definition_changed");
    if (needs.length === 0) return { decision: true };
    const scopes = q.tokenScope === undefined ? held : new Set(parseScope(effectiveScope(q.tokenScope, held)));
    return needs.some((s) => scopes.has(s)) ? { decision: true } : deny("scope_not_granted");
  }

  /** What the subject may hold on the server now (introspection's computation), or the reason it holds nothing. */
  private async heldScopes(rs: RegisteredServer, q: ToolQuestion): Promise<ReadonlySet<string> | DenyReason> {
    const { resolver } = this.deps;
    if (q.subject.type === "user") {
      if (!UUID.test(q.subject.id)) return "subject_inactive";
      if (q.clientId === undefined) return (await resolver.userScopes(rs.tenantId, rs.id, q.subject.id)) ?? "subject_inactive";
      const client = await this.reachingClient(rs, q.clientId);
      if (!client) return (await resolver.userScopes(rs.tenantId, rs.id, q.subject.id)) === null ? "subject_inactive" : "client_not_connected";
      return (await resolver.allowedScopes({ sub: q.subject.id, tenant_id: rs.tenantId, sub_type: "user" }, client, rs)) ?? "subject_inactive";
    }
    const client = await this.reachingClient(rs, q.subject.id);
    if (!client) return "subject_inactive";
    return (await resolver.allowedScopes({ sub: client.clientId, tenant_id: rs.tenantId, sub_type: "client" }, client, rs)) ?? "subject_inactive";
  }

  private async reachingClient(rs: RegisteredServer, clientId: string): Promise<TokenClient | null> {
    const client = await this.deps.clients.get(clientId);
    const connection = client?.tenantId === null ? await this.deps.connections.get(client.clientId, rs.id) : null;
    return clientMayReach(rs, rs.tenantId, client, connection) ? client : null;
  }
}
