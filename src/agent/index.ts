// toolgate/agent: the token client of an AI agent registered in Toolgate (docs/agents.md). Typed
// ESM, exported as the package subpath "./agent"; it imports nothing of Toolgate's server
// (test/architecture.test.ts) and only types of the official MCP SDK.
import { ToolgateAgent, type ToolgateAgentOptions } from "./agent";
import { ToolgateMcpAuthProvider, type McpAuthOptions } from "./mcp-auth-provider";

export { ToolgateAgent, type ToolgateAgentOptions } from "./agent";
export { ToolgateMcpAuthProvider, type McpAuthOptions, type AgentCredentials } from "./mcp-auth-provider";
export { TokenRequestError, backoffMs, DEFAULT_RETRY, type RetryOptions, type TokenSet } from "./token-request";
export { parseBearerChallenge, unionOfScopes, type BearerChallenge } from "./challenge";

/** An agent and, per MCP server, its auth provider for the official MCP SDK's transport. */
export function createAgent(opts: ToolgateAgentOptions): ToolgateAgent & { mcpAuth(serverUrl: string | URL, options?: McpAuthOptions): ToolgateMcpAuthProvider } {
  const agent = new ToolgateAgent(opts);
  return Object.assign(agent, {
    mcpAuth: (serverUrl: string | URL, options?: McpAuthOptions) =>
      new ToolgateMcpAuthProvider(agent, { issuer: opts.issuer, clientId: opts.clientId, clientSecret: opts.clientSecret }, String(serverUrl), options),
  });
}
