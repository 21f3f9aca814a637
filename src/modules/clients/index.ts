export { ClientService, type ServerLookup } from "./client-service";
export { ClientRegistry, type RegisteredClient } from "./registry";
export { LastUsedRecorder } from "./last-used";
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
export { findClientForSignIn, type ClientForSignIn } from "./sign-in-lookup";
