export { ClientService, type ServerLookup, type ClientGrantsSource } from "./client-service";
export { ClientRegistry, type RegisteredClient, type AssertionKeys } from "./registry";
export { LastUsedRecorder } from "./last-used";
export { WorkspaceClients, type WorkspaceClient } from "./workspace-clients";
export { ConnectionRegistry, ConnectionWriter, type ConnectionFacts, type ConnectInput } from "./connections";
export {
  CLIENT_KINDS,
  CLIENT_STATUSES,
  CLIENT_GRANT_TYPES,
  TOKEN_LIFETIME,
  defaultGrantTypes,
  redirectUriSchema,
  createClientSchema,
  dashboardClientSchema,
  updateClientSchema,
  rotateSecretSchema,
  secretGraceSchema,
  SECRET_GRACE,
  listClientsQuerySchema,
  CLIENT_LIST,
  CONNECTION_LIST,
  clientIdParamSchema,
  type ClientKind,
  type ClientStatus,
  type ClientGrantType,
  type CreateClientInput,
  type DashboardClientInput,
  type UpdateClientInput,
  type RotateSecretInput,
  type ListClientsQuery,
} from "./schemas";
export { toClientView, type ClientView, type CreatedClientView, type RotatedSecretView } from "./views";
export { findClientForSignIn, SignInClientLookup, type ClientForSignIn } from "./sign-in-lookup";
export { CimdClients, type CimdOutcome, type CimdStats } from "./cimd/cimd-clients";
export { AddressRateLimits, type AddressRateLimit } from "./address-limits";
export { isCimdClientId, cimdUrl } from "./cimd/client-id";
export { CIMD_MAX_BYTES, CIMD_CACHE, type CimdFetchOptions } from "./cimd/fetch-document";
export { RegistrationService, RegistrationAccessDenied, type RegistrationResponse, type RegistrationStats } from "./registration";
export { RegistrationError, readClientMetadata, DCR_AUTH_METHODS, ID_TOKEN_ALGS, DEFAULT_ID_TOKEN_ALG, type ClientMetadata, type IdTokenAlg } from "./registration-metadata";
export { readPublicJwks } from "./cimd/document";
