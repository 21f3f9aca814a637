// grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer (RFC 7523 §2.1), dispatched by the
// assertion's `typ` and the issuer's trust, not by the grant type alone (docs/enterprise-agents.md,
// shared notes "enterprise-auth" §2.4):
//
// ID-JAG (typ "oauth-id-jag+jwt", draft-ietf-oauth-identity-assertion-authz-grant, MCP
// enterprise-managed authorization): the client authenticates as registered, then every check of
// the notes' table in order, each with its error:
//   1 client authentication                                  invalid_client (401)
//   2 `assertion` present                                    invalid_request
//   3 typ, alg asymmetric (never none or HMAC)               invalid_grant
//   4 iss trusted by the workspace owning the resource;
//     signature against its JWKS (refetched once on an unknown kid)   invalid_grant
//   5 aud = our issuer (± one trailing slash), one audience   invalid_grant
//   6 exp / iat / nbf with the trust's skew; max lifetime     invalid_grant
//   7 jti used once until exp, on every instance              invalid_grant
//   8 client_id claim = the authenticated client              invalid_grant
//   9 resource is a live server of that workspace (and the client's own, when bound to one)  invalid_grant
//  10 scope: requested ∩ ID-JAG scope (narrowed, IETF §4.4.1; ∩ what the user holds at 12)
//  11 cnf.jkt (DPoP-bound) is not supported                   invalid_grant
//  12 subject resolves to an active user of the workspace     access_denied (invalid_grant for a malformed sub_id)
//  13 the (client, user, server) connection is approved      access_denied "... pending administrator approval (request <id>)"
// Success: a Bearer token for the user, audience-bound to the resource, `scope` always present,
// no refresh token (the client presents a new ID-JAG), carrying the connection's family (`fid`).
//
// Workload JWT (any other typ; SEP-1933 workload identity federation): no client secret; the
// workload trust of the resource's workspace (by `iss`, or by the SPIFFE trust domain of `sub`)
// checks signature, audience, lifetime and jti the same way, and its rules pick the service-account
// client: invalid_grant for the assertion, unauthorized_client for an unmapped subject or unusable
// client, invalid_scope for a scope its bindings do not grant.
import { compactVerify, decodeJwt, decodeProtectedHeader, createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import type { ClientRegistry, RegisteredClient } from "../../clients";
import type { RegisteredServer, ResourceServerRegistry } from "../../resource-servers";
import type { AccessTokenClaims, AccessTokenIssuer, SubjectScopeResolver } from "../../tokens";
import { parseScope } from "../../tokens";
import { TRUST_ALGS, ruleFor, spiffeTrustDomain, type IdJagSubjects, type TrustKeys, type TrustRegistry } from "../../trusts";
import type { AccessRequestService } from "../../access-requests";
import { canonicalResource } from "../../../shared/resource-url";
import type { Clock } from "../../../shared/clock";
import { OAuthError, oauthError } from "../errors";
import { multi, single, type RawParams } from "../params";
import type { RemoteKeySets } from "../assertions/remote-key-sets";
import type { UsedClientAssertions } from "../assertions/used-client-assertions";
import type { ConnectionGate } from "../connection-gate";
import type { AuthenticatedClient, ClientCredentialsInput } from "../client-auth";
import type { GrantHandler, GrantResult } from "./types";

export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
export const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
export const ID_JAG_TYP = "oauth-id-jag+jwt";
export const ID_JAG_PROFILE = "urn:ietf:params:oauth:grant-profile:id-jag";
const MAX_ASSERTION_CHARS = 16_384;
/** Printable, no space (the replay key is "<issuer> <jti>"), bounded. */
const JTI_RE = /^[\x21-\x7E]{1,200}$/;
const ASYMMETRIC: ReadonlySet<string> = new Set(TRUST_ALGS);

export interface JwtBearerDeps {
  publicUrl: string;
  clock: Clock;
  servers: ResourceServerRegistry;
  clients: ClientRegistry;
  issuer: AccessTokenIssuer;
  scopes: SubjectScopeResolver;
  trusts: TrustRegistry;
  subjects: IdJagSubjects;
  requests: AccessRequestService;
  keys: RemoteKeySets;
  used: UsedClientAssertions;
  connections: ConnectionGate;
}

const grantError = (reason: string) => oauthError("invalid_grant", reason);

/** The 400 access_denied of a connection waiting for an administrator (the SDK does not retry it). */
export function pendingApproval(requestId: string): OAuthError {
  return new OAuthError("access_denied", `the connection of this client for this user is pending administrator approval (request ${requestId})`, 400, `access request ${requestId} pending`);
}

export function jwtBearerGrant(deps: JwtBearerDeps): GrantHandler {
  const audiences = new Set([deps.publicUrl.replace(/\/+$/, ""), deps.publicUrl.replace(/\/+$/, "") + "/"]);
  const localSets = new WeakMap<object, JWTVerifyGetKey>();
  const keysOf = (keys: TrustKeys): JWTVerifyGetKey => {
    if ("jwksUri" in keys) return deps.keys.resolver(keys.jwksUri);
    let set = localSets.get(keys.jwks);
    if (!set) {
      set = createLocalJWKSet(keys.jwks as JSONWebKeySet);
      localSets.set(keys.jwks, set);
    }
    return set;
  };

  /** Row 4's signature check: the payload, or invalid_grant. */
  async function verifySignature(assertion: string, keys: TrustKeys, algs: readonly string[]): Promise<Record<string, unknown>> {
    try {
      const { payload } = await compactVerify(assertion, keysOf(keys) as never, { algorithms: [...algs] });
      return JSON.parse(new TextDecoder().decode(payload)) as Record<string, unknown>;
    } catch (e) {
      const err = e as { code?: string; message?: string };
      throw grantError(`signature: ${err.code ?? "error"}: ${err.message ?? String(e)}`);
    }
  }

  /** Row 6: exp required and not passed, iat (required for ID-JAG) and nbf not ahead, lifetime bounded. */
  function checkTimes(claims: Record<string, unknown>, skewS: number, maxLifetimeS: number, iatRequired: boolean): number {
    const now = deps.clock.now().getTime() / 1000;
    const { exp, iat, nbf } = claims;
    if (typeof exp !== "number") throw grantError("exp missing");
    if (exp + skewS <= now) throw grantError("expired");
    if (iat !== undefined && typeof iat !== "number") throw grantError("iat not a number");
    if (iatRequired && iat === undefined) throw grantError("iat missing");
    if (typeof iat === "number" && iat > now + skewS) throw grantError("iat in the future");
    if (typeof nbf === "number" && nbf > now + skewS) throw grantError("not yet valid (nbf)");
    const start = typeof iat === "number" ? iat : now;
    if (exp - start > maxLifetimeS + skewS) throw grantError("lifetime longer than the trust allows");
    return exp;
  }

  /** Row 7: the jti, once per issuer until exp (the oauth module's used-assertion table, every instance). */
  async function consumeJti(issuerKey: string, jti: unknown, exp: number): Promise<void> {
    if (typeof jti !== "string" || !JTI_RE.test(jti)) throw grantError("jti missing or not a short printable string");
    if (!(await deps.used.consume(issuerKey, jti, new Date(exp * 1000)))) throw grantError("jti already used (replay)");
  }

  function headerOf(assertion: string): { typ?: string; alg?: string } {
    if (assertion.length > MAX_ASSERTION_CHARS) throw grantError("assertion too long");
    try {
      return decodeProtectedHeader(assertion) as { typ?: string; alg?: string };
    } catch {
      throw grantError("assertion is not a JWS compact serialization");
    }
  }

  function unverifiedClaims(assertion: string): Record<string, unknown> {
    try {
      return decodeJwt(assertion) as Record<string, unknown>;
    } catch {
      throw grantError("assertion payload is not a JWT claims set");
    }
  }

  function assertAlg(alg: string | undefined): string {
    if (!alg || !ASYMMETRIC.has(alg)) throw grantError(`alg ${alg ?? "(none)"} is not an asymmetric algorithm we accept`);
    return alg;
  }

  async function idJag(params: RawParams, client: RegisteredClient): Promise<GrantResult> {
    // 2
    const assertion = single(params, "assertion");
    if (assertion === undefined) throw oauthError("invalid_request", "assertion missing");
    // 3
    const header = headerOf(assertion);
    if (header.typ !== ID_JAG_TYP) throw grantError("typ is not oauth-id-jag+jwt");
    const alg = assertAlg(header.alg);
    // 4: the workspace is the resource's; the trust is that workspace's trust of `iss`.
    const unverified = unverifiedClaims(assertion);
    const iss = unverified.iss;
    if (typeof iss !== "string" || iss === "") throw grantError("iss missing");
    const formResources = multi(params, "resource");
    if (formResources.length > 1) throw oauthError("invalid_target", "more than one resource");
    const claimResource = typeof unverified.resource === "string" ? unverified.resource : undefined;
    const resource = claimResource ?? formResources[0];
    let candidates: RegisteredServer[];
    if (resource !== undefined) candidates = client.tenantId !== null ? [await deps.servers.findByResource(client.tenantId, resource)].filter((s): s is RegisteredServer => s !== null) : await deps.servers.findAllByResource(resource);
    else candidates = client.resourceServerId ? [await deps.servers.get(client.resourceServerId)].filter((s): s is RegisteredServer => s !== null) : [];
    let server: RegisteredServer | undefined;
    let trust: Awaited<ReturnType<TrustRegistry["idJagTrust"]>>;
    for (const s of candidates) {
      trust = await deps.trusts.idJagTrust(s.tenantId, iss, unverified.tenant);
      if (trust) {
        server = s;
        break;
      }
    }
    if (!trust || !server) throw grantError("iss is not a trusted issuer of the workspace that owns the resource");
    if (!trust.allowedAlgs.includes(alg)) throw grantError(`alg ${alg} is not allowed by the trust`);
    const claims = await verifySignature(assertion, trust.keys, trust.allowedAlgs);
    if (claims.iss !== iss) throw grantError("iss changed between decode and verify");
    // 5
    const aud = Array.isArray(claims.aud) ? (claims.aud.length === 1 ? claims.aud[0] : undefined) : claims.aud;
    if (typeof aud !== "string" || !audiences.has(aud)) throw grantError("Audience validation failed");
    // 6
    const exp = checkTimes(claims, trust.clockSkewS, trust.maxAssertionLifetimeS, true);
    // 7
    await consumeJti(`id-jag:${iss}`, claims.jti, exp);
    // 8
    if (claims.client_id !== client.clientId) throw grantError("client_id claim is not the authenticated client");
    // 9
    if (claimResource !== undefined && formResources.length === 1 && canonicalResource(formResources[0]!) !== canonicalResource(claimResource)) throw grantError("the form's resource differs from the ID-JAG's");
    if (client.resourceServerId !== null && client.resourceServerId !== server.id) throw grantError("the client is registered for another resource server");
    // 10
    const idJagScopes = claims.scope === undefined ? undefined : parseScope(typeof claims.scope === "string" ? claims.scope : "");
    const requestedParam = single(params, "scope");
    const requested = requestedParam !== undefined ? parseScope(requestedParam) : idJagScopes;
    // 11
    if (typeof claims.cnf === "object" && claims.cnf !== null && "jkt" in claims.cnf) throw grantError("DPoP-bound ID-JAGs (cnf.jkt) are not supported");
    // 12
    const subject = await deps.subjects.resolve(trust, claims);
    if (!subject.ok) throw subject.error === "access_denied" ? new OAuthError("access_denied", "the user is not provisioned or not active for this application", 400, subject.reason) : grantError(subject.reason);
    const facts = { sub: subject.userId, sub_type: "user", tenant_id: server.tenantId, client_id: client.clientId } as AccessTokenClaims;
    const held = await deps.scopes.allowedScopes(facts, client, server);
    if (!held) throw new OAuthError("access_denied", "the user is not provisioned or not active for this application", 400, "user not active in the workspace");
    // 13
    const connection = await deps.requests.connectionFor({ tenantId: server.tenantId, resourceServerId: server.id, clientId: client.clientId, userId: subject.userId, trustId: trust.id, autoApproveGroupIds: trust.autoApproveGroupIds, scopes: requested ?? [...held] });
    if (connection.status === "pending") throw pendingApproval(connection.id);
    if (connection.status !== "approved") throw new OAuthError("access_denied", `the connection of this client for this user was ${connection.status} by an administrator (request ${connection.id})`, 400, `access request ${connection.status}`);
    const refusal = await deps.connections.refusal(client, server.tenantId, server.resourceUrl);
    if (refusal) throw refusal;

    const narrowed = connection.scopesGranted ? new Set(connection.scopesGranted) : undefined;
    const base = requested ?? [...held];
    const granted = base.filter((s) => held.has(s) && (idJagScopes === undefined || idJagScopes.includes(s)) && (!narrowed || narrowed.has(s)));
    if (granted.length === 0) throw oauthError("invalid_scope", "nothing requested is both in the ID-JAG and held by the user now");
    const token = await deps.issuer.issue({
      subject: subject.userId,
      subjectType: "user",
      clientId: client.clientId,
      tenantId: server.tenantId,
      audience: server.resourceUrl,
      scopes: granted,
      lifetimeSeconds: client.tokenLifetime,
      familyId: connection.familyId,
    });
    deps.requests.markConnected(connection.id);
    return token;
  }

  async function workload(params: RawParams): Promise<{ result: GrantResult; client: RegisteredClient }> {
    const assertion = single(params, "assertion");
    if (assertion === undefined) throw oauthError("invalid_request", "assertion missing");
    const header = headerOf(assertion);
    if (header.typ === ID_JAG_TYP) throw oauthError("invalid_client", "an ID-JAG needs client authentication");
    const alg = assertAlg(header.alg);
    const unverified = unverifiedClaims(assertion);
    const resources = multi(params, "resource");
    if (resources.length !== 1) throw oauthError("invalid_target", resources.length === 0 ? "a workload must name the resource" : "more than one resource");
    const servers = await deps.servers.findAllByResource(resources[0]!);
    if (servers.length === 0) throw oauthError("invalid_target", "no live resource server with that resource");
    let server: RegisteredServer | undefined;
    let trust: Awaited<ReturnType<TrustRegistry["workloadTrust"]>>;
    for (const s of servers) {
      trust = await deps.trusts.workloadTrust(s.tenantId, unverified.iss, unverified.sub);
      if (trust) {
        server = s;
        break;
      }
    }
    if (!trust || !server) throw grantError("no workload trust of the resource's workspace for this issuer or trust domain");
    if (!trust.allowedAlgs.includes(alg)) throw grantError(`alg ${alg} is not allowed by the trust`);
    const claims = await verifySignature(assertion, trust.keys, trust.allowedAlgs);
    if (trust.issuer !== null && claims.iss !== trust.issuer) throw grantError("iss is not the trust's issuer");
    const sub = claims.sub;
    if (typeof sub !== "string" || sub === "") throw grantError("sub missing");
    if (trust.trustDomain !== null && spiffeTrustDomain(sub) !== trust.trustDomain) throw grantError("sub is not a SPIFFE ID of the trust domain");
    const aud = claims.aud;
    if (!(aud === trust.audience || (Array.isArray(aud) && aud.includes(trust.audience)))) throw grantError("Audience validation failed");
    const exp = checkTimes(claims, trust.clockSkewS, trust.maxLifetimeS, false);
    await consumeJti(`workload:${trust.issuer ?? "spiffe://" + trust.trustDomain}`, claims.jti, exp);

    const clientId = ruleFor(trust.rules, sub);
    if (clientId === undefined) throw oauthError("unauthorized_client", "no rule of the trust maps this subject");
    const bodyId = single(params, "client_id");
    if (bodyId !== undefined && bodyId !== clientId) throw oauthError("unauthorized_client", "client_id is not the one the trust maps this subject to");
    const client = await deps.clients.get(clientId);
    if (!client || client.status !== "approved" || client.tenantId !== server.tenantId) throw oauthError("unauthorized_client", "the mapped client is not an approved client of the workspace");
    const workspaceWide = client.resourceServerId === null;
    if (!workspaceWide && client.resourceServerId !== server.id) throw oauthError("unauthorized_client", "the mapped client is registered for another resource server");

    const facts = { sub: client.clientId, sub_type: "client", tenant_id: server.tenantId, client_id: client.clientId } as AccessTokenClaims;
    const allowed = workspaceWide ? ((await deps.scopes.allowedScopes(facts, client, server)) ?? new Set<string>()) : client.allowedScopeSet;
    const requested = single(params, "scope");
    const scopes = requested === undefined ? [...allowed] : parseScope(requested);
    if (!scopes.every((s) => allowed.has(s))) throw oauthError("invalid_scope", "a requested scope is not granted to the workload's service account");
    const result = await deps.issuer.issue({ subject: client.clientId, clientId: client.clientId, tenantId: server.tenantId, audience: server.resourceUrl, scopes, lifetimeSeconds: client.tokenLifetime });
    return { result, client };
  }

  return {
    grantType: JWT_BEARER_GRANT,
    metadata: () => ({ authorization_grant_profiles_supported: [ID_JAG_PROFILE] }),
    // Dispatch needs the request before client authentication: handleRequest below.
    handle: () => Promise.reject(new Error("jwt-bearer is dispatched through handleRequest")),
    async handleRequest(input: ClientCredentialsInput, authenticate: (input: ClientCredentialsInput) => Promise<AuthenticatedClient>) {
      const assertion = single(input.params, "assertion");
      let typ: string | undefined;
      if (assertion !== undefined) {
        try {
          typ = (decodeProtectedHeader(assertion) as { typ?: string }).typ;
        } catch {
          typ = undefined;
        }
      }
      const p = input.params;
      const credentials = input.basic !== undefined || input.malformedAuthorization === true || p.client_secret !== undefined || p.client_assertion !== undefined || p.client_assertion_type !== undefined;
      // A request with client credentials is an ID-JAG request (a wrong typ is then row 3's
      // invalid_grant); a workload authenticates by its JWT alone (a body client_id may name its client).
      if (typ === ID_JAG_TYP || credentials) {
        // 1: client authentication as registered; then the client must hold the grant type.
        const { client } = await authenticate(input);
        if (!client.grantTypes.has(JWT_BEARER_GRANT)) throw oauthError("unauthorized_client", "jwt-bearer is not among the client's grant types");
        return { result: await idJag(p, client), client };
      }
      return workload(p);
    },
  };
}
