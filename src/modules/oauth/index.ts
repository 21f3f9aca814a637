export { ClientAuthenticator, CLIENT_AUTH_METHODS, type ClientAuthMethod, type ClientCredentialsInput, type AuthenticatedClient } from "./client-auth";
export { TokenEndpoint } from "./token-endpoint";
export { IntrospectionEndpoint, type IntrospectionRequest } from "./introspection-endpoint";
export { RevocationEndpoint, type TokenRevoker } from "./revocation-endpoint";
export { createGrants, clientCredentialsGrant, type GrantDeps, type SignInGrantDeps, type GrantHandler, type GrantContext, type GrantResult } from "./grants";
export { buildServerMetadata, OAUTH_PATHS, type ServerMetadata, type MetadataContributor } from "./metadata";
export { OAUTH_ERROR_DESCRIPTIONS, oauthError } from "./errors";
export { single, required, multi, type RawParams } from "./params";
export { createOAuth, type OAuthDeps, type OAuthServices } from "./create";
