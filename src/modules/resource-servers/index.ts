export { ResourceServerService, type RotatedSecret, type RotationHook } from "./resource-server-service";
export { ResourceServerRegistry, type RegisteredServer } from "./registry";
export {
  createResourceServerSchema,
  updateResourceServerSchema,
  listResourceServersQuery,
  RESOURCE_SERVER_LIST,
  scopeTokenSchema,
  mcpTokenSchema,
  MCP_TOKEN_RULE,
  nameSchema,
  REGISTRATION_MODES,
  type RegistrationMode,
  type CreateResourceServerInput,
  type UpdateResourceServerInput,
} from "./schemas";
export { toResourceServerView, endpointsFor, badgesOf, type ResourceServerView } from "./views";
export { createLifecycle, type ResourceServerLifecycle, type LifecycleDeps } from "./lifecycle";
export { SERVER_STATES, SCAN_STATUSES, stateAfterScan, activationBlockedByState, type ServerState } from "./state-machine";
export type { ScanOutcome } from "./scan/scan-service";
export { scanMcpServer, ScanFailure, type Scanner, type ScannedTool, type ScanOptions } from "./scan/mcp-scanner";
export { createToolSchema, markPublicSchema, createScopeSchema, toolScopeMapSchema, toolNameSchema } from "./catalog/schemas";
export { TOOL_LIST, SCOPE_LIST, listToolsQuery, listScopesQuery } from "./catalog/schemas";
export { DRIFT_EVENT_LIST, listDriftEventsQuery } from "./drift/views";
export { accessPolicySchema, FIRST_TIME_GRANTS } from "./access-policy/schemas";
export { compileScopeMatrix, deniedTools, type ScopeMatrix } from "./policy/compile";
export type { CompiledPolicy, PolicyDocument } from "./policy/policy-cache";
export { DRIFT_EVENT_TYPES, type DriftEventType, type DriftPayloads } from "./drift/record";
export type { ToolView, ScopeView, ScopeMatrixView } from "./catalog/views";
export type { DriftEventView } from "./drift/views";
export type { Checklist, ChecklistItem } from "./setup/checklist";
export { buildChecklist, CHECKLIST_IDS, type ChecklistId } from "./setup/checklist";
export { readSetupInputs, checklistFacts, type SetupInputs, type SetupInputsReader, type SetupPolicy } from "./setup/inputs";
export { manifestWarnings } from "./policy/manifest";
export { describeForConsent, type ConsentDescription } from "./consent-description";
