// toolgate/sdk: protect an MCP server (official @modelcontextprotocol/sdk) with Toolgate.
// Nothing here imports Toolgate's server code (test/architecture.test.ts enforces it). docs/sdk.md.
export { createToolgateGuard, SDK_VERSION, type ToolgateGuard, type ToolgateGuardOptions, type GuardDecision, type GuardRequest, type GuardLogger } from "./guard";
export { toolDefinitionHash, canonicalJson, type ToolDefinition } from "./definition-hash";
export { metadataPaths, metadataUrl, bearerChallenge, type ProtectedResourceMetadata } from "./protected-resource";
export type { PolicyDocument } from "./toolgate-api";
export {
  createAuthZenClient,
  toolCallEvaluation,
  AuthZenRequestFailed,
  type AuthZenClient,
  type AuthZenClientOptions,
  type AuthZenDecision,
  type AuthZenEvaluation,
  type ToolCallQuestion,
  type EvaluationsSemantic,
} from "./authzen";
export { CredentialsRefused } from "./toolgate-api";
