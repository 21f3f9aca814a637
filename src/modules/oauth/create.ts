// Builds the clients, token and OAuth-protocol pieces in dependency order. Their caches are per
// entry and fill on demand (docs/decisions/0001-per-entry-caches.md); only the revocation lists,
// small by construction, are loaded before the app serves anything.
// src/app.ts calls this once; tests and the benchmark reach the pieces through Services.oauth.
import type { Db } from "../../storage";
import type { CacheFactory } from "../../storage/cache-factory";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { ClientRegistry, ClientService, LastUsedRecorder, type ClientGrantsSource, type ConnectionRegistry, type ServerLookup } from "../clients";
import { ConnectionGate } from "./connection-gate";
import type { ResourceServerRegistry } from "../resource-servers";
import {
  AccessTokenIssuer,
  AccessTokenVerifier,
  IntrospectionService,
  RevocationList,
  TokenRevocationService,
  type JwtService,
  type KeyStore,
  type SubjectScopeResolver,
} from "../tokens";
import { ClientAuthenticator } from "./client-auth";
import { ClientAssertionVerifier } from "./assertions/assertion-verifier";
import { RemoteKeySets } from "./assertions/remote-key-sets";
import { UsedClientAssertions } from "./assertions/used-client-assertions";
import type { OutboundFetchOptions } from "../../shared/outbound/fetch-json";
import { createGrants, type GrantHandler, type SignInGrantDeps } from "./grants";
import { IntrospectionEndpoint } from "./introspection-endpoint";
import { OAUTH_PATHS, buildOpenIdConfiguration, buildServerMetadata, type MetadataContributor, type ServerMetadata } from "./metadata";
import { IdTokens } from "./id-tokens";
import { UserInfoEndpoint, type UserClaimsSource } from "./userinfo-endpoint";
import { ACR_VALUES, OIDC_SCOPES } from "../signin";
import { ID_TOKEN_ALGS } from "../clients";
import { RevocationEndpoint, type TokenRevoker } from "./revocation-endpoint";
import { TokenEndpoint } from "./token-endpoint";
import { TokenFamilies } from "./token-families";
import { AccessRequestService, type ApprovalBindings, type ClientConnector } from "../access-requests";
import type { IdJagSubjects, TrustRegistry } from "../trusts";
import { jwtBearerGrant } from "./grants/jwt-bearer";
import { NO_OAUTH_OUTCOMES, type OAuthOutcomes, type TokenEvents } from "./outcomes";

export interface OAuthDeps {
  db: Db;
  caches: CacheFactory;
  clock: Clock;
  ids: IdGenerator;
  /** Pepper of secret hashes (shared with resource-server secrets). */
  pepper: Buffer;
  publicUrl: string;
  jwt: JwtService;
  keys: KeyStore;
  /** In-memory resource servers (token audience, introspection caller authentication). */
  servers: ResourceServerRegistry;
  /** Finds the live server named in an admin path (ResourceServerService.findLive). */
  serverLookup: ServerLookup;
  /** What pre-registered clients hold on their server now (rbac), for their list rows. */
  clientGrants: ClientGrantsSource;
  /** What a token's subject may hold now (the RBAC scope resolver). */
  scopes: SubjectScopeResolver;
  /** Where failures off the request path (a background reload) and fail-closed answers are reported. */
  onBackgroundError: (e: unknown) => void;
  /** End-user sign-in state (authorization_code and refresh_token). */
  signin: SignInGrantDeps;
  /** dcr/cimd clients' connections (built before sign-in, which reads them too). */
  connectionRegistry: ConnectionRegistry;
  /** Metadata of features outside the grants (registration_endpoint, CIMD support). */
  metadataContributors?: readonly MetadataContributor[];
  /** How private_key_jwt clients' jwks_uri are fetched (the CIMD fetch's options: SSRF guard, deadline, CA). */
  outbound: OutboundFetchOptions;
  /** Told of every token and introspection answer (the metrics); none when omitted. */
  outcomes?: OAuthOutcomes;
  /** The user's profile for /userinfo (tenancy). */
  userClaims: UserClaimsSource["user"];
  /** Told of every token issued (the audit trail's counters); none when omitted. */
  tokenEvents?: TokenEvents;
  /** Enterprise-managed agents and workloads (the jwt-bearer grant): trusts, subjects, approvals. */
  enterprise: { trusts: TrustRegistry; subjects: IdJagSubjects; bindings: ApprovalBindings; connectClient: ClientConnector };
}

export interface OAuthServices {
  clientRegistry: ClientRegistry;
  /** dcr/cimd clients' connections to servers, per entry (hot path). */
  connectionRegistry: ConnectionRegistry;
  lastUsed: LastUsedRecorder;
  revocations: RevocationList;
  verifier: AccessTokenVerifier;
  issuer: AccessTokenIssuer;
  introspection: IntrospectionService;
  tokenRevocation: TokenRevocationService;
  /** Refresh-token chains with their access tokens. */
  families: TokenFamilies;
  grants: readonly GrantHandler[];
  /** RFC 8414 authorization server metadata. */
  metadata: ServerMetadata;
  /** OpenID Connect Discovery: the RFC 8414 document plus OIDC's members. */
  openIdConfiguration: ServerMetadata;
  idTokens: IdTokens;
  userinfo: UserInfoEndpoint;
  tokenEndpoint: TokenEndpoint;
  introspectionEndpoint: IntrospectionEndpoint;
  revocationEndpoint: RevocationEndpoint;
  /** Access requests and agent connections of ID-JAG clients (the jwt-bearer grant's approvals). */
  accessRequests: AccessRequestService;
}

export async function createOAuth(deps: OAuthDeps): Promise<{ clients: ClientService; oauth: OAuthServices }> {
  const { db, caches, clock, ids } = deps;
  const clientRegistry = new ClientRegistry(db, deps.pepper, caches);
  const revocations = new RevocationList(db, clock, caches.bus, deps.onBackgroundError);
  await revocations.load(); // small by construction: unexpired revocations only
  const clients = new ClientService(db, deps.serverLookup, deps.pepper, clock, ids, deps.clientGrants);
  const lastUsed = new LastUsedRecorder(db, clock);
  const verifier = new AccessTokenVerifier(deps.jwt, deps.keys, clock, caches.bus);
  const issuer = new AccessTokenIssuer(deps.jwt, clock, ids);
  const connectionRegistry = deps.connectionRegistry;
  const outcomes = deps.outcomes ?? NO_OAUTH_OUTCOMES;
  const introspection = new IntrospectionService(verifier, revocations, clientRegistry, connectionRegistry, deps.scopes, deps.onBackgroundError, (active, cached) =>
    outcomes.introspectionAnswered(active, cached),
  );
  const tokenRevocation = new TokenRevocationService(verifier, revocations);
  const assertions = new ClientAssertionVerifier(clientRegistry, new RemoteKeySets(clock, deps.outbound), new UsedClientAssertions(db, clock), clock, [
    deps.publicUrl,
    deps.publicUrl.replace(/\/+$/, "") + OAUTH_PATHS.token,
  ]);
  const auth = new ClientAuthenticator(clientRegistry, clock, assertions);
  const { refreshTokens } = deps.signin;
  const families = new TokenFamilies(revocations, refreshTokens);
  const connections = new ConnectionGate(deps.servers, connectionRegistry);
  const idTokens = new IdTokens(deps.jwt, clock);
  const accessRequests = new AccessRequestService(db, caches, clock, ids, revocations, deps.enterprise.bindings, deps.enterprise.connectClient);
  const grants = [
    ...createGrants({ servers: deps.servers, issuer, scopes: deps.scopes, signin: deps.signin, families, connections, idTokens }),
    jwtBearerGrant({
      publicUrl: deps.publicUrl,
      clock,
      servers: deps.servers,
      clients: clientRegistry,
      issuer,
      scopes: deps.scopes,
      trusts: deps.enterprise.trusts,
      subjects: deps.enterprise.subjects,
      requests: accessRequests,
      // Issuers' key sets: fetched like a private_key_jwt client's jwks_uri (SSRF guard, cache, one refetch on an unknown kid).
      keys: new RemoteKeySets(clock, deps.outbound),
      used: new UsedClientAssertions(db, clock),
      connections,
    }),
  ];
  const metadata = buildServerMetadata(deps.publicUrl, grants, deps.metadataContributors);
  const revokers: TokenRevoker[] = [
    { tokenType: "access_token", revoke: (client, token) => tokenRevocation.revoke(client, token) },
    {
      // RFC 7009 §2.1: revoking a refresh token revokes its chain and the access tokens minted from it.
      tokenType: "refresh_token",
      async revoke(client, token) {
        const familyId = await refreshTokens.familyOf(token, client.clientId);
        if (familyId === null) return false;
        await families.revoke(familyId);
        return true;
      },
    },
  ];
  return {
    clients,
    oauth: {
      clientRegistry,
      connectionRegistry,
      lastUsed,
      revocations,
      verifier,
      issuer,
      introspection,
      tokenRevocation,
      families,
      grants,
      metadata,
      openIdConfiguration: buildOpenIdConfiguration(metadata, { idTokenSigningAlgs: ID_TOKEN_ALGS, acrValues: ACR_VALUES, scopes: [...OIDC_SCOPES] }),
      idTokens,
      userinfo: new UserInfoEndpoint(verifier, revocations, deps.servers, { user: deps.userClaims, userScopes: deps.signin.userScopes }),
      tokenEndpoint: new TokenEndpoint(auth, grants, lastUsed, outcomes, deps.tokenEvents),
      introspectionEndpoint: new IntrospectionEndpoint(deps.servers, introspection),
      revocationEndpoint: new RevocationEndpoint(auth, revokers),
      accessRequests,
    },
  };
}
