// Composition root: builds every service from its dependencies and mounts the HTTP surface.
// Exported for tests, which start it on an ephemeral port; src/main.ts adds listen() and signals.
import express, { type Express } from "express";
import type { Config } from "./config";
import type { Db, Tx } from "./storage";
import { auditTrailOf, changesOf, PgChangeChannel, SqliteChangeWatch, type ChangeBus } from "./storage";
import { AuditEventService, AuditRetention, SecurityCounters } from "./modules/audit";
import { createIntegrations, type Integrations } from "./modules/integrations";
import { CacheFactory } from "./storage/cache-factory";
import { type Clock, systemClock } from "./shared/clock";
import { type IdGenerator, randomIds } from "./shared/ids";
import { deriveKey } from "./shared/crypto";
import type { Logger } from "./shared/logger";
import { JwtService, KeyStore } from "./modules/tokens";
import { AdminAuthenticator, LoginThrottle, TenancyService, type AdminCandidate } from "./modules/tenancy";
import { EndUserService, MembershipService } from "./modules/tenancy";
import { createRbac, type RbacServices } from "./modules/rbac";
import { ResourceServerRegistry, ResourceServerService, createLifecycle, describeForConsent, type ResourceServerLifecycle } from "./modules/resource-servers";
import { readFileSync } from "node:fs";
import { AddressRateLimits, CimdClients, ConnectionRegistry, ConnectionWriter, RegistrationService, SignInClientLookup, WorkspaceClients, type ClientService } from "./modules/clients";
import { createSignIn, TicketSealer, type SignInServices } from "./modules/signin";
import { FederationService, IdentityProviderService } from "./modules/identity-providers";
import { createOAuth, OAUTH_PATHS, type OAuthServices } from "./modules/oauth";
import { requestLog } from "./rest/request-log";
import { requestContext } from "./rest/request-context";
import { countOAuthRefusals } from "./rest/oauth-refusals";
import { auditEventsRouter } from "./rest/audit-events";
import { integrationsRouter } from "./rest/integrations";
import { agentsRouter } from "./rest/agents";
import { AgentService } from "./modules/agents";
import { IdJagSubjects, TrustRegistry, TrustService } from "./modules/trusts";
import type { AccessRequestService } from "./modules/access-requests";
import { trustsRouter } from "./rest/trusts";
import { accessRequestsRouter } from "./rest/access-requests";
import { AUDIT_ACTIONS } from "./modules/audit";
import { currentContext } from "./shared/request-context";
import { normaliseAddress } from "./shared/client-address";
import { Metrics } from "./metrics/metrics";
import { httpMetrics } from "./rest/http-metrics";
import { metricsRouter } from "./rest/metrics";
import { errorHandler } from "./rest/errors";
import { rejectUnsafeInputExcept } from "./rest/input-hygiene";
import { adminAuth, noStore } from "./rest/admin-auth";
import { GRAPHQL_PATH, createGraphQLServer } from "./graphql/server";
import { healthRouter } from "./rest/health";
import { authRouter } from "./rest/auth";
import { usersRouter } from "./rest/users";
import { resourceServersRouter } from "./rest/resource-servers";
import { lifecycleRouter } from "./rest/lifecycle";
import { toolsScopesRouter } from "./rest/tools-scopes";
import { driftRouter } from "./rest/drift";
import { runtimeRouter } from "./rest/runtime";
import { mountOAuth } from "./rest/oauth";
import { discoveryRouter } from "./rest/discovery";
import { clientsRouter } from "./rest/clients";
import { benchBaselineRouter } from "./rest/bench-baseline";
import { membershipsRouter } from "./rest/memberships";
import { endUsersRouter } from "./rest/end-users";
import { rolesRouter } from "./rest/roles";
import { groupsRouter } from "./rest/groups";
import { identityProvidersRouter } from "./rest/identity-providers";
import { loginProxyRouter } from "./rest/login-proxy";
import { adminSignInProvidersRouter } from "./rest/admin-sign-in-providers";
import { metricsStatusRouter } from "./rest/metrics-status";
import { roleBindingsRouter } from "./rest/role-bindings";
import { effectiveAccessRouter } from "./rest/effective-access";
import { authorizeRouter } from "./rest/authorize";
import { oidcRouter } from "./rest/oidc";
import { cookieSettings } from "./rest/session-cookie";
import { selfServiceRouter } from "./rest/self-service";
import { cockpitRouter } from "./rest/cockpit";
import { webauthnLoginRouter } from "./rest/webauthn-login";
import { mfaPolicyRouter } from "./rest/mfa-policy";
import { REGISTRATION_PATH, registrationRouter, type RegistrationHttpStats } from "./rest/registration";
import { notFoundUnlessRouted, requireJsonBody } from "./rest/request-guards";
import { gatewayPrefixAlias } from "./rest/gateway-prefix";
import { migrationsRouter } from "./rest/migrations";
import { MigrationService } from "./modules/operations";
import { createAccessViews, type AccessViews } from "./modules/access-views";
import { accessViewsRouter } from "./rest/access-views";
import { createAuthZen, type AuthZenService } from "./modules/authzen";
import { authzenRouter } from "./rest/authzen";
import { EvidenceService } from "./modules/evidence";
import { evidenceRouter } from "./rest/evidence";
import { AccessChangeService } from "./modules/access-changes";
import { accessChangesRouter } from "./rest/access-changes";

export interface AppDeps {
  config: Config;
  db: Db;
  masterKey: Buffer;
  logger: Logger;
  clock?: Clock;
  ids?: IdGenerator;
  /** Where the shipped migrations are (default: prisma/migrations of this installation). */
  migrationsRoot?: string;
  /** Randomness for jitter (webhook retries); Math.random unless a test fixes it. */
  random?: () => number;
}

/** Everything the composition root builds; tests and the CLI reach services through this. */
export interface Services {
  config: Config;
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  logger: Logger;
  /** Committed writes' cache changes: this process's caches subscribe here (storage/change-bus.ts). */
  changes: ChangeBus;
  /** The hot-path caches (per entry, bounded, invalidated through `changes`). */
  caches: CacheFactory;
  /** This instance's Prometheus figures (its own registry; GET /metrics). */
  metrics: Metrics;
  /** Pepper for secret hashes (client and introspection secrets). */
  secretPepper: Buffer;
  keys: KeyStore;
  jwt: JwtService;
  tenancy: TenancyService;
  /** Sign-in attempt counts in the database (admin login and end-user sign-in); pruned from start(). */
  loginThrottle: LoginThrottle;
  /** Per-address limits in the database (registrations, CIMD fetches), shared by instances; pruned from start(). */
  addressLimits: AddressRateLimits;
  /** Admin JWT -> Actor, for REST and GraphQL alike. */
  adminAuth: AdminAuthenticator;
  memberships: MembershipService;
  endUsers: EndUserService;
  /** Roles, groups, bindings, effective access and the hot-path scope resolver (rbac.resolver). */
  rbac: RbacServices;
  registry: ResourceServerRegistry;
  resourceServers: ResourceServerService;
  /** Scan, tools and scopes, setup and activation, access policy, runtime policy, drift events. */
  lifecycle: ResourceServerLifecycle;
  /** Pre-registered OAuth clients (admin side). */
  clients: ClientService;
  /** Token endpoint, introspection, revocation, discovery metadata and their in-memory caches. */
  oauth: OAuthServices;
  /** End-user sign-in: authorization endpoint pages, codes, refresh tokens, first-time grant, sessions, second factors. */
  signin: SignInServices<AdminCandidate>;
  /** Dynamic client registration (RFC 7591/7592) and its counters. */
  registration: RegistrationService;
  /** Client ID Metadata Document clients (fetch, validation, staged redirect changes) and their counters. */
  cimd: CimdClients;
  /** Counters of the registration endpoint's HTTP limits (set when the HTTP app is built). */
  registrationHttpStats: RegistrationHttpStats;
  /** Database migrations of the installation (owner only; /svc/migration). */
  migrations: MigrationService;
  /** The audit trail: reading it, the hot paths' counted events, retention with signed checkpoints. */
  audit: { events: AuditEventService; counters: SecurityCounters; retention: AuditRetention };
  /** /svc/exsvc: webhooks (subscriptions, fan-out, dispatcher) and the log stream. */
  integrations: Integrations;
  /** /svc/sdkmgr/agents: AI agents, their credentials and reach. */
  agents: AgentService;
  /** /svc/v1: read models of who may call what and why, and access simulations (spec capability 7). */
  accessViews: AccessViews;
  /** AuthZEN 1.0 decisions for resource servers (/access/v1/evaluation[s]). */
  authzen: AuthZenService;
  /** Signed evidence exports of an application's access (/svc/v1/applications/:id/evidence-exports). */
  evidence: EvidenceService;
  /** Access change previews (/svc/v1/applications/:id/access-change-previews); previewChange for the simulation's fix. */
  accessChanges: AccessChangeService;
  /** /svc/oocmgr/id-jag-trusts and /svc/spire/trust-domains. */
  trusts: TrustService;
  /** Access requests and agent connections (the jwt-bearer grant's approvals). */
  accessRequests: AccessRequestService;
  /** /svc/oocmgr/providers: the workspace's upstream OpenID providers. */
  identityProviders: IdentityProviderService;
  /** /svc/hmgr/login and /svc/hmgr/callback: sign-in through an upstream provider. */
  federation: FederationService;
}

/** Roles that may sign in to the cockpit through an identity provider (admin SSO). */
const ADMIN_SSO_ROLES: ReadonlySet<string> = new Set(["owner", "admin", "readonly_auditor"]);

/** Request body limits: admin JSON is small (OAuth forms: rest/oauth.ts); manifests get a larger, explicit limit. */
export const JSON_BODY_LIMIT = "100kb";
/** How often clients' last-used stamps are written (batched off the token endpoint's path). */
const LAST_USED_FLUSH_MS = 10_000;
/** How often registrations that never connected are looked for (TOOLGATE_REGISTRATION_IDLE_DAYS). */
const REGISTRATION_PRUNE_MS = 60 * 60 * 1000;
/** How often each instance deletes expired sign-in counts and ended per-address windows (an indexed DELETE each). */
const COUNTS_PRUNE_MS = 10 * 60_000;
/** How often each instance applies the audit trail's retention (TOOLGATE_AUDIT_RETENTION_DAYS). */
const AUDIT_PRUNE_MS = 60 * 60_000;

export async function createServices(deps: AppDeps): Promise<Services> {
  const clock = deps.clock ?? systemClock;
  const ids = deps.ids ?? randomIds;
  const changes = changesOf(deps.db);
  changes.configureStaleness(deps.config.cacheStaleMs);
  // Audit events are stamped with the services' clock (tests move it).
  auditTrailOf(deps.db).useClock(clock);
  // Counted security events of the hot paths; the workspace of a client or server is looked up at flush, off the request path.
  const counters = new SecurityCounters(
    deps.db,
    clock,
    async (clientId) => (await deps.db.client.findUnique({ where: { clientId }, select: { tenantId: true } }))?.tenantId ?? null,
    async (id) => (await deps.db.resourceServer.findUnique({ where: { id }, select: { tenantId: true } }))?.tenantId ?? null,
  );
  const caches = new CacheFactory(changes, deps.config.cacheMaxEntries);
  const metricsExposed = deps.config.metricsToken !== undefined && deps.config.metricsToken !== "";
  const metrics = new Metrics({ caches: caches.built, bus: changes }, metricsExposed);
  const onBackgroundError = (e: unknown) => deps.logger.warn({ err: e }, "could not answer from the database; failing closed");
  const keys = new KeyStore(deps.db, deriveKey(deps.masterKey, "signing-keys"), clock, changes, onBackgroundError);
  await keys.init();
  const jwt = new JwtService(keys, deps.config.publicUrl, clock);
  const loginThrottle = new LoginThrottle(deps.db, clock, deriveKey(deps.masterKey, "login-throttle"));
  const tenancy = new TenancyService(deps.db, jwt, clock, loginThrottle, {
    throttled: (address, workspaceId) => counters.count({ action: AUDIT_ACTIONS.signInThrottled, outcome: "failure", workspaceId, address }),
  });
  metrics.readSignIns(tenancy.stats);
  const adminAuth = new AdminAuthenticator(jwt, tenancy);
  const memberships = new MembershipService(deps.db, clock, ids, deps.config.database.kind);
  const endUsers = new EndUserService(deps.db, clock, ids, deps.config.database.kind);
  const rbac = createRbac({ db: deps.db, caches, clock, ids });
  const secretPepper = deriveKey(deps.masterKey, "secret-pepper");
  const registry = new ResourceServerRegistry(deps.db, secretPepper, caches);
  const resourceServers = new ResourceServerService(deps.db, secretPepper, deps.config.publicUrl, clock, ids, deps.config.database.kind);
  const lifecycle = await createLifecycle({ db: deps.db, caches, clock, ids, logger: deps.logger, jwt, registry, servers: resourceServers, scan: deps.config.scan, onScanOutcome: (o) => metrics.scanFinished(o) });
  const resolver = rbac.resolver;
  const connectionRegistry = new ConnectionRegistry(deps.db, caches);
  const connectionWriter = new ConnectionWriter(deps.db, clock, ids);
  // The CIMD document fetch and a private_key_jwt client's jwks_uri fetch share these options.
  const outbound = {
    allowPrivateNetworks: deps.config.scan.allowPrivateNetworks,
    timeoutMs: deps.config.cimd.timeoutMs,
    ca: deps.config.cimd.caFile === undefined ? undefined : readFileSync(deps.config.cimd.caFile, "utf8"),
  };
  const addressLimits = new AddressRateLimits(deps.db, clock);
  const cimd = new CimdClients(
    deps.db,
    clock,
    ids,
    outbound,
    (clientId, reason) => {
      deps.logger.warn({ client_id: clientId, reason }, "client metadata document refused");
      counters.count({ action: AUDIT_ACTIONS.cimdFetchRefused, outcome: "failure", clientId, workspaceId: null, reason, address: currentContext()?.address ?? null });
    },
    addressLimits.limit("cimd-fetch", deps.config.cimd.fetchesPerAddressPerMinute, 60_000),
  );
  const signInClients = new SignInClientLookup(deps.db, cimd);
  // Upstream OpenID providers (docs/federation.md): discovery and JWKS through the same outbound guard.
  const basePath = new URL(deps.config.publicUrl).pathname.replace(/\/+$/, "");
  const identityProviders = new IdentityProviderService(
    deps.db,
    clock,
    ids,
    deriveKey(deps.masterKey, "identity-provider-secrets"),
    outbound,
    `${deps.config.publicUrl.replace(/\/+$/, "")}/svc/hmgr/callback`,
    `${deps.config.publicUrl.replace(/\/+$/, "")}${OAUTH_PATHS.jwks}`,
  );
  // The clients' registry is built with the OAuth pieces below; logout reads it only at request time.
  let clientsRegistry: OAuthServices["clientRegistry"] | undefined;
  const signin = createSignIn({
    db: deps.db,
    clock,
    ids,
    ticketKey: deriveKey(deps.masterKey, "sign-in-tickets"),
    secondFactorKey: deriveKey(deps.masterKey, "second-factors"),
    pepper: secretPepper,
    sessions: deps.config.sessions,
    throttled: (person, source, check) => tenancy.throttledAttempt(person.tenantId, person.userId, source, check),
    admin: { verifyAdmin: (input, source) => tenancy.verifyAdmin(input, source), issueAdminToken: (account, amr, enrolOnly) => tenancy.issueAdminToken(account, amr, enrolOnly) },
    postLogoutRedirectUris: async (clientId) => (await clientsRegistry?.get(clientId))?.postLogoutRedirectUris ?? null,
    refresh: { successorKey: deriveKey(deps.masterKey, "refresh-successors"), graceSeconds: deps.config.refreshGraceSeconds },
    issuer: deps.config.publicUrl,
    grantRole: (tx, g) => rbac.bindings.grantFirstTime(tx, g),
    ports: {
      findClient: (clientId, address) => signInClients.find(clientId, address),
      serverByResource: (tenantId, resource) => registry.findByResource(tenantId, resource),
      serverById: (id) => registry.get(id),
      serversByResource: (resource) => registry.findAllByResource(resource),
      connectionStatus: async (clientId, serverId) => (await connectionRegistry.get(clientId, serverId))?.status ?? null,
      // The connection row names the roles through which the user holds what was granted.
      connect: async (input) => connectionWriter.connect({ ...input, roles: await rbac.grantingRoles.forUser(input.tenantId, input.resourceServerId, input.userId, input.scopes) }),
      describe: (tenantId, serverId, scopes) => describeForConsent(deps.db, tenantId, serverId, scopes),
      verifyUser: (workspaceId, email, password, source) => tenancy.verifyCredentials(workspaceId, email, password, source),
      userScopes: (tenantId, resourceServerId, userId) => resolver.userScopes(tenantId, resourceServerId, userId),
      userEmail: (tenantId, userId) => tenancy.emailOf(tenantId, userId),
      readIdTokenHint: async (token) => {
        const c = await jwt.readIdTokenHint(token);
        return c ? { sub: c.sub, aud: c.aud, sid: c.sid } : null;
      },
      signInOptions: async (tenantId, ticket) => {
        const [offered, password] = await Promise.all([identityProviders.offered(tenantId, "end_users"), tenancy.endUserPasswordSignIn(tenantId)]);
        return {
          // Never a page without a way in: with no provider offered, the password form stays.
          passwordEnabled: password || offered.length === 0,
          providers: offered.map((p) => ({ name: p.name, href: `${basePath}/svc/hmgr/login?${new URLSearchParams({ provider: p.id, ticket })}` })),
          discoverAction: offered.some((p) => p.emailDomains.length > 0) ? `${basePath}/svc/hmgr/login` : undefined,
        };
      },
    },
  });
  const trustRegistry = new TrustRegistry(deps.db, caches);
  const federation = new FederationService(
    deps.db,
    clock,
    ids,
    identityProviders,
    new TicketSealer(deriveKey(deps.masterKey, "federation-flow"), () => clock.now()),
    outbound,
    {
      pendingAuthorization: (ticket) => signin.service.pendingAuthorization(ticket),
      continueAuthorization: (ticket, user, factors, cookie) => signin.service.federatedSignIn(ticket, user, factors, cookie),
      consumeOnce: (value, expiresAt) => signin.service.consumeOnce(value, expiresAt),
      findUserByEmail: (tx, tenantId, email) => tenancy.findUserByEmailIn(tx, tenantId, email),
      createUser: (tx, tenantId, input) => tenancy.createFederatedUser(tx, tenantId, input),
      emailOf: (tx, tenantId, userId) => tenancy.emailIn(tx, tenantId, userId),
      standing: (tx, tenantId, userId) => tenancy.standingIn(tx, tenantId, userId),
      syncGroups: async (tx, tenantId, userId, managed, desired) => void (await rbac.groups.syncMemberships(tx, tenantId, userId, managed, desired)),
      grantRole: (tx, g) => rbac.bindings.grantFirstTime(tx, g),
      // private_key_jwt to an upstream provider: signed with the ES256 key published in our JWKS.
      clientAssertion: (clientId, audience) => jwt.signClientAssertion(clientId, audience, ids.token(16)),
      adminStanding: async (tenantId, userId, upstreamAmr) => {
        const candidate = await tenancy.adminCandidateOf(tenantId, userId);
        if (!candidate || !ADMIN_SSO_ROLES.has(candidate.role)) return "not_admin";
        // The workspace's MFA rule for admins holds: the provider must say it used more than one factor.
        return candidate.workspaceRequiresMfa && !upstreamAmr.includes("mfa") ? "mfa_required" : "ok";
      },
      adminToken: async (tenantId, userId, upstreamAmr) => {
        const candidate = await tenancy.adminCandidateOf(tenantId, userId);
        if (!candidate || !ADMIN_SSO_ROLES.has(candidate.role)) return "not_admin";
        if (candidate.workspaceRequiresMfa && !upstreamAmr.includes("mfa")) return "mfa_required";
        return tenancy.issueAdminToken(candidate, upstreamAmr.includes("mfa") ? ["fed", "mfa"] : ["fed"]);
      },
    },
    basePath,
  );
  const { clients, oauth } = await createOAuth({
    db: deps.db,
    caches,
    onBackgroundError,
    clock,
    ids,
    pepper: secretPepper,
    outbound,
    publicUrl: deps.config.publicUrl,
    jwt,
    keys,
    servers: registry,
    serverLookup: resourceServers,
    clientGrants: rbac.grantingRoles,
    scopes: rbac.resolver,
    signin: { codes: signin.codes, refreshTokens: signin.refreshTokens, userScopes: (t, r, u) => resolver.userScopes(t, r, u) },
    connectionRegistry,
    // RFC 8414 §2 / RFC 7591 §3: where clients register themselves.
    metadataContributors: [
      (base) => ({ registration_endpoint: base + REGISTRATION_PATH }),
      // draft-ietf-oauth-client-id-metadata-document §5: https client_ids are fetched as metadata documents.
      () => ({ client_id_metadata_document_supported: true }),
    ],
    // Counted only when /metrics exists (TOOLGATE_METRICS_TOKEN): no work per request otherwise.
    outcomes: metricsExposed ? metrics : undefined,
    userClaims: (tenantId, userId) => tenancy.profileOf(tenantId, userId),
    enterprise: {
      trusts: trustRegistry,
      subjects: new IdJagSubjects(deps.db, clock, ids),
      bindings: rbac.bindings,
      connectClient: async (a) => connectionWriter.connect({ ...a, roles: await rbac.grantingRoles.forUser(a.tenantId, a.resourceServerId, a.userId, a.scopes) }),
    },
    tokenEvents: { issued: (clientId, workspaceId, grantType) => counters.countIssued(AUDIT_ACTIONS.tokensIssued, clientId, workspaceId, grantType) },
  });
  clientsRegistry = oauth.clientRegistry;
  const registration = new RegistrationService(deps.db, secretPepper, clock, ids, deps.config.publicUrl.replace(/\/+$/, "") + REGISTRATION_PATH);
  // Removing a member drops their group memberships and bindings (rbac's tables) in the same transaction.
  memberships.onRemoved((tx, tenantId, userId) => rbac.groups.removeUserEverywhere(tx, tenantId, userId));
  memberships.onRemoved((tx, tenantId, userId) => rbac.bindings.removeUserBindings(tx, tenantId, userId));
  // A person whose access ends loses their browser sessions in the same transaction (removed,
  // membership suspended or left, end user suspended): docs/openid-provider.md "Sessions".
  const endSessions = (tx: Tx, tenantId: string, userId: string) => signin.sessions.endAllFor(tx, tenantId, userId);
  memberships.onRemoved(endSessions);
  memberships.onDeactivated(endSessions);
  endUsers.onSuspended(endSessions);
  // Roles' grants and clients' allowed scopes name scope ids: a deleted scope leaves both in the same transaction.
  lifecycle.catalog.onScopeDeleted((tx, tenantId, rsId, scopeKey) => rbac.roles.removeDeletedScope(tx, tenantId, rsId, scopeKey));
  lifecycle.catalog.onScopeDeleted((tx, tenantId, rsId, scopeKey) => clients.removeDeletedScope(tx, tenantId, rsId, scopeKey));
  const onBackgroundFailure = (what: string) => (e: unknown) => deps.logger.warn({ err: e }, what);
  const integrations = createIntegrations({
    db: deps.db,
    caches,
    clock,
    ids,
    random: deps.random ?? Math.random,
    secretKey: deriveKey(deps.masterKey, "webhook-secrets"),
    dispatch: { ...deps.config.webhooks, baseMs: deps.config.webhooks.retryBaseMs, maxMs: deps.config.webhooks.retryMaxMs, ca: outbound.ca },
    logStream: deps.config.audit.logStream,
    onError: onBackgroundFailure("webhook or log-stream work failed; it is retried"),
  });
  const audit = {
    events: new AuditEventService(deps.db),
    counters,
    retention: new AuditRetention(deps.db, keys, clock, ids, deps.config.publicUrl, deps.config.audit.retentionDays),
  };
  const agents = new AgentService(deps.db, clock, ids, new WorkspaceClients(secretPepper, clock, ids), rbac.bindings);
  // Simulations decide with introspection's own pieces: the resolver, the client and connection
  // lookups, and the compiled runtime policy the SDK fetches.
  const accessChanges = new AccessChangeService({
    db: deps.db,
    resolver: rbac.resolver,
    clock,
    findApplication: (actor, id) => resourceServers.findLive(deps.db, actor, id),
    policy: async (id) => (await lifecycle.policies.get(id))?.document ?? null,
    // A connection revoke is judged by introspection's own client and connection lookups.
    client: (clientId) => oauth.clientRegistry.get(clientId),
    connection: (clientId, rsId) => oauth.connectionRegistry.get(clientId, rsId),
  });
  const accessViews = createAccessViews({
    db: deps.db,
    clock,
    ids,
    ports: {
      resolver,
      policy: (rsId) => lifecycle.policies.get(rsId),
      client: (clientId) => oauth.clientRegistry.get(clientId),
      connection: (clientId, rsId) => oauth.connectionRegistry.get(clientId, rsId),
    },
    // "Why did this fail" reads the failures the audit trail records.
    auditEvents: audit.events,
    // A simulation's fix is priced by the change preview (who would gain which tools).
    previewChange: (actor, id, change) => accessChanges.preview(actor, id, change),
  });
  const authzen = createAuthZen({
    policy: (rs) => lifecycle.runtime.policy(rs),
    resolver: rbac.resolver,
    clients: oauth.clientRegistry,
    connections: connectionRegistry,
    publicUrl: deps.config.publicUrl,
  });
  const evidence = new EvidenceService({
    db: deps.db,
    clock,
    ids,
    keys,
    publicUrl: deps.config.publicUrl,
    findApplication: (actor, id) => resourceServers.findLive(deps.db, actor, id),
    policyEtag: async (id) => {
      const rs = await registry.get(id);
      return rs ? (await lifecycle.runtime.policy(rs)).etag : null;
    },
    lockApplication: (tx, tenantId, rsId) => resourceServers.lockForWrite(tx as Tx, tenantId, rsId),
  });
  return {
    audit,
    integrations,
    agents,
    accessViews,
    authzen,
    evidence,
    accessChanges,
    trusts: new TrustService(deps.db, clock, ids),
    accessRequests: oauth.accessRequests,
    identityProviders,
    federation,
    config: deps.config,
    db: deps.db,
    clock,
    ids,
    logger: deps.logger,
    changes,
    caches,
    metrics,
    secretPepper,
    keys,
    jwt,
    tenancy,
    loginThrottle,
    addressLimits,
    adminAuth,
    memberships,
    endUsers,
    rbac,
    registry,
    resourceServers,
    lifecycle,
    clients,
    oauth,
    signin,
    registration,
    cimd,
    registrationHttpStats: { rateLimited: 0, tooLarge: 0 },
    migrations: new MigrationService(deps.db, deps.config.database.kind, deps.migrationsRoot),
  };
}

export function createHttpApp(services: Services): Express {
  const { db, logger, tenancy, resourceServers } = services;
  const app = express();
  app.disable("x-powered-by");
  // req.ip is the socket's peer unless TOOLGATE_TRUST_PROXY names the proxies in front (then the
  // address they report in X-Forwarded-For): the login throttle counts per client address.
  app.set("trust proxy", services.config.trustProxy ?? false);
  app.set("etag", false);
  // Prometheus figures: only with TOOLGATE_METRICS_TOKEN (bearer), else 404 (rest/metrics.ts); no
  // one can read the HTTP figures then, so requests are not timed at all.
  if (services.config.metricsToken) app.use(httpMetrics(services.metrics.httpDuration, [GRAPHQL_PATH]));
  app.use(requestLog(logger));
  // /svc/uflow/v2/... is answered as /uflow/v2/... (the spec's gateway prefix; rest/gateway-prefix.ts).
  app.use(gatewayPrefixAlias);
  // The OAuth endpoints first: they are the hottest paths (token, introspection), and every layer
  // above a route is a path match on each of its requests (docs/decisions/0021-oauth-hot-path-http.md).
  // They parse their own forms and answer every error in the OAuth shape (their error handler is
  // mounted right after them: nothing above it but the request log and metrics raises errors).
  mountOAuth(
    app,
    { token: services.oauth.tokenEndpoint, introspection: services.oauth.introspectionEndpoint, revocation: services.oauth.revocationEndpoint },
    logger,
    countOAuthRefusals(services.audit.counters),
  );
  app.use(metricsRouter(services.metrics, services.config.metricsToken));
  // Runtime Basic auth (sdk-policy, sdk-manifest): before the body parsers (the manifest has its
  // own limit) and before the admin JWT middleware.
  app.use(runtimeRouter(services.registry, services.lifecycle));
  // Everything below runs in a request context (request id, address, then the caller): the audit
  // trail's who and from where (src/shared/request-context.ts). The hot paths above write no event.
  app.use(requestContext);
  const cookies = cookieSettings(services.config.publicUrl);
  app.use(authorizeRouter(services.signin.service, cookies, logger));
  // OpenID Connect: /userinfo and the end_session_endpoint (their own forms and error shapes).
  app.use(oidcRouter(services.oauth.userinfo, services.signin.logout, cookies, logger));
  // RFC 7591/7592 in its own router: its own JSON limit, rate limit and error shape.
  const { perAddress, windowMs } = services.config.registration;
  const registration = registrationRouter(services.registration, services.addressLimits.limit("register", perAddress, windowMs), logger, (req, reason) =>
    services.audit.counters.count({ action: AUDIT_ACTIONS.registrationRefused, outcome: "failure", workspaceId: null, reason, address: normaliseAddress(req.ip) }),
  );
  services.registrationHttpStats = registration.stats;
  services.metrics.readRegistrations({ service: services.registration.stats, http: registration.stats });
  app.use(registration.router);
  app.use(discoveryRouter(services.oauth.metadata, services.oauth.openIdConfiguration, services.keys));
  // AuthZEN 1.0 decisions (Basic rs_id secret; own JSON parser) and its PDP metadata.
  app.use(authzenRouter(services.authzen, services.registry));

  // Admin routers (admin JWT; every router serving /svc or /uflow below belongs here or in
  // `unauthenticated`: the 404 guard knows only these). Routers that authenticate differently
  // (runtime Basic auth on sdk-policy/sdk-manifest, OAuth endpoints) are mounted above.
  const adminRouters = [
    usersRouter(tenancy),
    resourceServersRouter(resourceServers),
    lifecycleRouter(services.lifecycle),
    toolsScopesRouter(services.lifecycle),
    driftRouter(services.lifecycle),
    clientsRouter(services.clients),
    membershipsRouter(services.memberships),
    endUsersRouter(services.endUsers),
    rolesRouter(services.rbac.roles),
    groupsRouter(services.rbac.groups),
    roleBindingsRouter(services.rbac.bindings),
    effectiveAccessRouter(services.rbac.effectiveAccess),
    auditEventsRouter(services.audit.events),
    integrationsRouter(services.integrations),
    agentsRouter(services.agents),
    evidenceRouter(services.evidence),
    accessChangesRouter(services.accessChanges),
    trustsRouter(services.trusts),
    accessRequestsRouter(services.accessRequests),
    migrationsRouter(services.migrations),
    mfaPolicyRouter(tenancy),
    accessViewsRouter(services.accessViews),
    identityProvidersRouter(services.identityProviders),
    metricsStatusRouter(services.config.metricsToken),
  ];
  const { signin } = services;
  const unauthenticated = [
    healthRouter(db, services.changes),
    authRouter(signin.adminSignIn),
    loginProxyRouter(services.federation, cookies, logger),
    adminSignInProvidersRouter(services.identityProviders),
    webauthnLoginRouter(signin.service, signin.adminSignIn, cookies, services.config.publicUrl, logger),
    // A person's own second factors, passkeys, sessions and consents: their admin JWT or their session cookie.
    selfServiceRouter({ adminAuth: services.adminAuth, sessions: signin.sessions, consents: signin.consents, totp: signin.totp, passkeys: signin.passkeys, cookies, publicUrl: services.config.publicUrl }),
  ];

  // An unknown admin path is 404 before authentication, and a body that is not JSON is 415.
  app.use(notFoundUnlessRouted(["/svc", "/uflow"], [...unauthenticated, ...adminRouters]));
  app.use(["/svc", "/uflow"], requireJsonBody);
  // Everything else takes JSON bodies and answers errors as {error} (rest/errors.ts).
  app.use(express.json({ limit: JSON_BODY_LIMIT }));
  // Unstorable input (NUL, unpaired surrogates, absurd nesting) is a 400 before any route runs;
  // GraphQL checks its arguments itself, answering in its own error shape (graphql/input-hygiene.ts).
  app.use(rejectUnsafeInputExcept(GRAPHQL_PATH));

  // Unauthenticated surface.
  app.use(unauthenticated);
  if (services.config.benchRoutes) app.use(benchBaselineRouter());

  // The cockpit's page and assets (public files; the page signs in through the API): rest/cockpit.ts.
  app.use(cockpitRouter());

  // The cockpit graph authenticates the same admin JWT itself, per request (src/graphql/context.ts).
  app.use(GRAPHQL_PATH, createGraphQLServer(services));

  // Admin JWT for every admin prefix.
  app.use(["/svc", "/uflow"], adminAuth(services.adminAuth), noStore);
  app.use(adminRouters);

  app.use((_req, res) => {
    res.status(404).json({ error: "not found" });
  });
  app.use(errorHandler(logger));
  return app;
}

export interface App {
  app: Express;
  services: Services;
  /**
   * Starts background work: the cache-invalidation listener (PostgreSQL: LISTEN/NOTIFY between
   * instances; SQLite: the watch for writes of the CLI) and the batched last-used stamps.
   */
  start(): Promise<void>;
  /** The PostgreSQL invalidation channel once started (tests observe reconnects through it). */
  readonly channel: PgChangeChannel | undefined;
  /** SQLite: the watch for writes of other processes (the CLI). */
  readonly watch: SqliteChangeWatch | undefined;
  /** Resolves once every change committed anywhere before the call has reached this process's caches. */
  catchUp(): Promise<void>;
  close(): Promise<void>;
}

export async function createApp(deps: AppDeps): Promise<App> {
  const services = await createServices(deps);
  const app = createHttpApp(services);
  const log = deps.logger;
  const channel = deps.config.database.kind === "postgresql" ? new PgChangeChannel(deps.config.database.url, services.changes, log) : undefined;
  const watch = deps.config.database.kind === "sqlite" ? new SqliteChangeWatch(deps.db, services.changes) : undefined;
  let pruneTimer: NodeJS.Timeout | undefined;
  const pruneCounts = async () => {
    await services.loginThrottle.prune().catch((e) => log.warn({ err: e }, "could not prune expired sign-in attempt counts"));
    await services.addressLimits.prune().catch((e) => log.warn({ err: e }, "could not prune ended per-address rate windows"));
    await services.signin.sessions.prune().catch((e) => log.warn({ err: e }, "could not prune expired browser sessions"));
  };
  return {
    app,
    services,
    channel,
    watch,
    async catchUp() {
      await (channel ? channel.sync() : watch?.check());
    },
    async start() {
      await channel?.start();
      await watch?.start(deps.config.cachePollMs, (e) => log.warn({ err: e }, "could not check the database file for outside writes"));
      services.oauth.lastUsed.start(LAST_USED_FLUSH_MS, (e) => log.warn({ err: e }, "client last-used flush failed"));
      services.accessRequests.start(LAST_USED_FLUSH_MS, (e) => log.warn({ err: e }, "agent connection last-connected flush failed"));
      services.registration.startPruning(deps.config.registration.idleDays, REGISTRATION_PRUNE_MS, (e) => log.warn({ err: e }, "pruning idle registrations failed"));
      pruneTimer = setInterval(pruneCounts, COUNTS_PRUNE_MS).unref();
      services.audit.counters.start(deps.config.audit.flushMs, (e) => log.warn({ err: e }, "writing counted audit events failed"));
      services.audit.retention.start(AUDIT_PRUNE_MS, (e) => log.warn({ err: e }, "audit retention failed"));
      await services.integrations.start();
    },
    async close() {
      clearInterval(pruneTimer);
      watch?.stop();
      await channel?.stop();
      services.registration.stopPruning();
      await services.oauth.lastUsed.stop().catch((e) => log.warn({ err: e }, "client last-used flush failed"));
      await services.accessRequests.stop().catch((e) => log.warn({ err: e }, "agent connection last-connected flush failed"));
      services.audit.retention.stop();
      await services.audit.counters.stop().catch((e) => log.warn({ err: e }, "writing counted audit events failed"));
      await services.integrations.stop();
    },
  };
}
