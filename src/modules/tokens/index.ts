export { KeyStore, SIGNING_ALG, SIGNING_ALGS, type SigningAlg, type RotateResult } from "./key-store";
export { JwtService, ACCESS_TOKEN_TYP, ADMIN_AUDIENCE, ID_TOKEN_TYP, type AccessTokenClaims, type AdminTokenClaims, type IdTokenClaims } from "./jwt";
export { MAX_TOKEN_LIFETIME_S, publishedKeysAt, signingKeyAt } from "./key-schedule";
export { AccessTokenVerifier, VERIFIED_TOKEN_CACHE_SIZE } from "./verified-tokens";
export { RevocationList } from "./revocation-list";
export { AccessTokenIssuer, type IssueRequest, type TokenResponse } from "./issuer";
export { TokenRevocationService, type RevokingClient } from "./revocation";
export { IntrospectionService, judgeClient, clientMayReach, type IntrospectionResult, type ActiveIntrospection, type ClientLookup, type ConnectionLookup, type TokenConnection } from "./introspection";
export {
  effectiveScope,
  NOT_CACHED,
  type NotCached,
  parseScope,
  type SubjectScopeResolver,
  type SubjectScopeSource,
  type TokenClient,
  type TokenServer,
} from "./subject-scopes";
