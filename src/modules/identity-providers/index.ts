// Upstream identity providers of a workspace (docs/federation.md): their configuration
// (/svc/oocmgr/providers, the graph) and the login proxy (/svc/hmgr/login, /svc/hmgr/callback).
// One table of providers per workspace serves federation now and trust (ID-JAG issuers) later.
export { IdentityProviderService, toProvider, type Provider, type ProviderView, type ProviderRow } from "./provider-service";
export { FederationService, FEDERATED_FACTOR, FLOW_TTL_S, ADMIN_SSO_TTL_S, type AdminTokenAnswer, type FederationPorts, type FederationStep, type FlowCookie } from "./federation";
export { discover, discoveryUrl, type ProviderMetadata, type DiscoveryResult } from "./discovery";
export { UpstreamKeySets, UpstreamRefusal, verifyIdToken, exchangeCode, CLOCK_SKEW_S } from "./id-tokens";
export { createProviderSchema, updateProviderSchema, listProvidersQuery, PROVIDER_LIST, ALLOWED_FOR, type AllowedFor, type CreateProviderInput, type UpdateProviderInput, type ClaimMapping, type GroupSyncEntry } from "./schemas";
