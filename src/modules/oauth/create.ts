// Builds the clients, token and OAuth-protocol pieces in dependency order and loads their
// in-memory caches before the app serves anything (the hot paths never fall back to the database).
// src/app.ts calls this once; tests and the benchmark reach the pieces through Services.oauth.
import type { Db } from "../../storage";
import type { CacheVersions } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { ClientRegistry, ClientService, LastUsedRecorder, type ServerLookup } from "../clients";
import type { ResourceServerRegistry } from "../resource-servers";
import {
  AccessTokenIssuer,
  AccessTokenVerifier,
  DefaultSubjectScopeResolver,
  IntrospectionService,
  RevocationList,
  TokenRevocationService,
  type JwtService,
  type KeyStore,
  type SubjectScopeResolver,
} from "../tokens";
import { ClientAuthenticator } from "./client-auth";
import { createGrants, type GrantHandler, type SignInGrantDeps } from "./grants";
import { IntrospectionEndpoint } from "./introspection-endpoint";
import { buildServerMetadata, type MetadataContributor, type ServerMetadata } from "./metadata";
import { RevocationEndpoint, type TokenRevoker } from "./revocation-endpoint";
import { TokenEndpoint } from "./token-endpoint";
import { TokenFamilies } from "./token-families";

export interface OAuthDeps {
  db: Db;
  versions: CacheVersions;
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
  /** What a token's subject may hold now; default: machine tokens -> the client's allowed scopes. */
  scopes?: SubjectScopeResolver;
  /** End-user sign-in state; when given, authorization_code and refresh_token are served and advertised. */
  signin?: SignInGrantDeps;
  /** Extra metadata members of features outside the grants (e.g. registration_endpoint). */
  metadataContributors?: MetadataContributor[];
}

export interface OAuthServices {
  clientRegistry: ClientRegistry;
  lastUsed: LastUsedRecorder;
  revocations: RevocationList;
  verifier: AccessTokenVerifier;
  issuer: AccessTokenIssuer;
  introspection: IntrospectionService;
  tokenRevocation: TokenRevocationService;
  /** Refresh-token chains with their access tokens (present when sign-in is wired). */
  families?: TokenFamilies;
  grants: readonly GrantHandler[];
  metadata: ServerMetadata;
  tokenEndpoint: TokenEndpoint;
  introspectionEndpoint: IntrospectionEndpoint;
  revocationEndpoint: RevocationEndpoint;
}

export async function createOAuth(deps: OAuthDeps): Promise<{ clients: ClientService; oauth: OAuthServices }> {
  const { db, versions, clock, ids } = deps;
  const clientRegistry = new ClientRegistry(db, deps.pepper, versions);
  const revocations = new RevocationList(db, clock, versions);
  await Promise.all([clientRegistry.load(), revocations.load()]);
  const clients = new ClientService(db, deps.serverLookup, versions, deps.pepper, clock, ids);
  const lastUsed = new LastUsedRecorder(db, clock);
  const verifier = new AccessTokenVerifier(deps.jwt, deps.keys, clock, versions);
  const issuer = new AccessTokenIssuer(deps.jwt, clock, ids);
  const introspection = new IntrospectionService(verifier, revocations, clientRegistry, deps.scopes ?? new DefaultSubjectScopeResolver());
  const tokenRevocation = new TokenRevocationService(verifier, revocations);
  const auth = new ClientAuthenticator(clientRegistry);
  const refreshTokens = deps.signin?.refreshTokens;
  const families = refreshTokens ? new TokenFamilies(revocations, refreshTokens) : undefined;
  const grants = createGrants({ servers: deps.servers, issuer, signin: deps.signin, families });
  const revokers: TokenRevoker[] = [{ tokenType: "access_token", revoke: (client, token) => tokenRevocation.revoke(client, token) }];
  if (refreshTokens && families) {
    // RFC 7009 §2.1: revoking a refresh token revokes its chain and the access tokens minted from it.
    revokers.push({
      tokenType: "refresh_token",
      async revoke(client, token) {
        const familyId = await refreshTokens.familyOf(token, client.clientId);
        if (familyId === null) return false;
        await families.revoke(familyId);
        return true;
      },
    });
  }
  return {
    clients,
    oauth: {
      clientRegistry,
      lastUsed,
      revocations,
      verifier,
      issuer,
      introspection,
      tokenRevocation,
      families,
      grants,
      metadata: buildServerMetadata(deps.publicUrl, grants, deps.metadataContributors),
      tokenEndpoint: new TokenEndpoint(auth, grants, lastUsed),
      introspectionEndpoint: new IntrospectionEndpoint(deps.servers, introspection),
      revocationEndpoint: new RevocationEndpoint(auth, revokers),
    },
  };
}
