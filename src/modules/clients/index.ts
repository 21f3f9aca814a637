export { ClientService, type ServerLookup } from "./client-service";
export { ClientRegistry, type RegisteredClient } from "./registry";
export { LastUsedRecorder } from "./last-used";
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
  listClientsQuerySchema,
  CLIENT_LIST,
  clientIdParamSchema,
  type ClientKind,
  type ClientStatus,
  type ClientGrantType,
  type CreateClientInput,
  type DashboardClientInput,
  type UpdateClientInput,
  type ListClientsQuery,
} from "./schemas";
export { toClientView, type ClientView, type CreatedClientView } from "./views";
export { findClientForSignIn, type ClientForSignIn } from "./sign-in-lookup";
export { RegistrationService, RegistrationAccessDenied, type RegistrationResponse, type RegistrationStats } from "./registration";
export { RegistrationError, readClientMetadata, DCR_AUTH_METHODS, type ClientMetadata } from "./registration-metadata";
