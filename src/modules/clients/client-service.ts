// Pre-registered OAuth clients of a resource server: create (secret shown once), list, read,
// configure, revoke. Every query is scoped by the actor's workspace and by the server in the path:
// another workspace's server or client is indistinguishable from an unknown one (404).
// Every write to a client row drops its ClientRegistry entry when it commits (the unit of work), so
// the token endpoint and introspection see the change at once, here and on every instance.
import type { Prisma } from "../../generated/sqlite/client";
import { recordAuditEvent, type Db, type DbOrTx } from "../../storage";
import { AUDIT_ACTIONS } from "../audit";
import type { Clock } from "../../shared/clock";
import { epochSeconds } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { hashSecret } from "../../shared/crypto";
import { badRequest, conflict, notFound } from "../../shared/errors";
import { type Actor, assertCanRead, assertCanWrite } from "../../shared/actor";
import type { Client, Connection } from "../../generated/sqlite/client";
import { DbNull } from "@prisma/client/runtime/client";
import type { Page } from "../../shared/pagination";
import {
  CLIENT_LIST,
  TOKEN_LIFETIME,
  defaultGrantTypes,
  type CreateClientInput,
  type DashboardClientInput,
  type ListClientsQuery,
  type RotateSecretInput,
  type UpdateClientInput,
} from "./schemas";
import { toClientView, type ClientView, type CreatedClientView, type PreregGrants, type RotatedSecretView } from "./views";

/**
 * Client secrets are 256-bit random strings, shown once, stored as a peppered hash
 * (docs/decisions/0003-client-secrets.md).
 */
export const SECRET_BYTES = 32;
/** client_id: "tgc_" + 128 random bits, base64url — opaque and URL-safe (docs/decisions/0003-client-secrets.md). */
export const CLIENT_ID_PREFIX = "tgc_";
export const CLIENT_ID_BYTES = 16;

/** What pre-registered clients hold on their server now (rbac's GrantingRoles, wired in app.ts). */
export interface ClientGrantsSource {
  forClients(tenantId: string, resourceServerId: string, clients: ReadonlyArray<{ id: string; allowedScopes: readonly string[] }>): Promise<Map<string, PreregGrants>>;
}

/** How the clients module finds the live resource server named in a path (resource-servers module). */
export interface ServerLookup {
  findLive(tx: DbOrTx, actor: Actor, id: string): Promise<{ id: string; tenantId: string; registrationModes: unknown }>;
}

export class ClientService {
  constructor(
    private readonly db: Db,
    private readonly servers: ServerLookup,
    private readonly pepper: Buffer,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly grants: ClientGrantsSource,
  ) {}

  /** Views of one server's clients: pre-registered ones with their grants there now (one lookup for all). */
  private async views(tenantId: string, resourceServerId: string, rows: ReadonlyArray<{ client: Client; connection?: Connection | null }>): Promise<ClientView[]> {
    const prereg = rows.filter((r) => !r.connection).map((r) => ({ id: r.client.id, allowedScopes: r.client.allowedScopes as string[] }));
    const grants = await this.grants.forClients(tenantId, resourceServerId, prereg);
    return rows.map((r) => toClientView(r.client, r.connection, r.connection ? undefined : grants.get(r.client.id)));
  }

  private async view(tenantId: string, resourceServerId: string, client: Client, connection?: Connection | null): Promise<ClientView> {
    return (await this.views(tenantId, resourceServerId, [{ client, connection }]))[0]!;
  }

  /**
   * Pre-registration (registration_mode "prereg"). The answer is the only place the secret appears.
   * A public client (token_endpoint_auth_method "none": agent, human_app or cli; never
   * client_credentials, checked by the schema) gets no secret at all.
   */
  async create(actor: Actor, resourceServerId: string, input: CreateClientInput): Promise<CreatedClientView> {
    assertCanWrite(actor);
    const isPublic = input.token_endpoint_auth_method === "none";
    const fresh = isPublic ? undefined : this.newSecret();
    const secret = fresh?.secret;
    const now = this.clock.now();
    const row = await this.db.$transaction(async (tx) => {
      const server = await this.servers.findLive(tx, actor, resourceServerId);
      if (!(server.registrationModes as string[]).includes("prereg")) {
        throw conflict("pre-registration is not enabled for this resource server (registration_modes)");
      }
      await this.assertScopesExist(tx, actor, server.id, input.allowed_scopes);
      const created = await tx.client.create({
        data: {
          id: this.ids.uuid(),
          clientId: CLIENT_ID_PREFIX + this.ids.token(CLIENT_ID_BYTES),
          tenantId: actor.tenantId,
          resourceServerId: server.id,
          clientName: input.client_name,
          description: input.description ?? null,
          kind: input.kind,
          registrationMode: "prereg",
          status: "approved",
          secretHash: fresh?.secretHash ?? null,
          tokenEndpointAuthMethod: input.token_endpoint_auth_method,
          redirectUris: input.redirect_uris,
          grantTypes: input.grant_types ?? defaultGrantTypes(input.kind),
          allowedScopes: input.allowed_scopes,
          tokenLifetime: input.token_lifetime,
          registrationMetadata: oidcMetadata({}, input),
          createdAt: now,
          updatedAt: now,
        },
      });
      return created;
    });
    const issued = { client_id_issued_at: epochSeconds(now), client_secret_expires_at: 0 as const };
    return secret === undefined ? { ...toClientView(row), ...issued } : { ...toClientView(row), client_secret: secret, ...issued };
  }

  /** The dashboard form (Client Name, Client Type, Description) for the same record. */
  async createFromDashboard(actor: Actor, input: DashboardClientInput): Promise<CreatedClientView> {
    return this.create(actor, input.resource_server_id, {
      client_name: input.client_name,
      kind: input.client_type,
      description: input.description,
      token_endpoint_auth_method: "client_secret_basic",
      redirect_uris: [],
      allowed_scopes: [],
      token_lifetime: TOKEN_LIFETIME.default,
    });
  }

  /**
   * One page of the server's clients, oldest first (CLIENT_LIST): its pre-registered clients and
   * the dcr/cimd clients connected to it (one query; the status filter applies to a connected
   * client's connection).
   */
  async list(actor: Actor, resourceServerId: string, query: ListClientsQuery): Promise<Page<ClientView>> {
    assertCanRead(actor);
    await this.servers.findLive(this.db, actor, resourceServerId);
    const kind = query.kind === undefined ? {} : { kind: query.kind };
    const status = query.status === undefined ? {} : { status: query.status };
    // "Pending approval" also lists the clients whose agents wait for an administrator on this
    // server (access requests of the jwt-bearer grant, modules/access-requests; read here, written there).
    const waiting =
      query.status === "pending"
        ? (await this.db.accessRequest.findMany({ where: { resourceServerId, tenantId: actor.tenantId, status: "pending" }, select: { clientId: true }, distinct: ["clientId"], take: 1000 })).map((r) => r.clientId)
        : [];
    const rows = await this.db.client.findMany({
      where: CLIENT_LIST.where(
        {
          OR: [
            { tenantId: actor.tenantId, resourceServerId, ...kind, ...status },
            { tenantId: null, ...kind, connections: { some: { resourceServerId, tenantId: actor.tenantId, ...status } } },
            ...(waiting.length > 0 ? [{ clientId: { in: waiting }, ...kind, OR: [{ tenantId: actor.tenantId }, { tenantId: null }] }] : []),
          ],
        },
        query.cursor,
      ),
      include: { connections: { where: { resourceServerId, tenantId: actor.tenantId }, take: 1 } },
      orderBy: CLIENT_LIST.orderBy,
      take: query.limit + 1,
    });
    const prereg = rows.filter((r) => r.connections.length === 0).map((r) => ({ id: r.id, allowedScopes: r.allowedScopes as string[] }));
    const grants = await this.grants.forClients(actor.tenantId, resourceServerId, prereg);
    return CLIENT_LIST.page(rows, query.limit, (r) => toClientView(r, r.connections[0], grants.get(r.id)));
  }

  async get(actor: Actor, resourceServerId: string, clientId: string): Promise<ClientView> {
    assertCanRead(actor);
    const { client, connection } = await this.findAny(this.db, actor, resourceServerId, clientId);
    return this.view(actor.tenantId, resourceServerId, client, connection);
  }

  /** Changes the configurable properties; a narrower allowed_scopes narrows live tokens at once. */
  async update(actor: Actor, resourceServerId: string, clientId: string, input: UpdateClientInput): Promise<ClientView> {
    assertCanWrite(actor);
    const row = await this.db.$transaction(async (tx) => {
      const { client: current, connection } = await this.findAny(tx, actor, resourceServerId, clientId);
      if (connection) throw conflict("a dcr or cimd client manages its own registration; a workspace can only revoke its connection");
      if (current.status === "revoked") throw conflict("client is revoked");
      if (current.tokenEndpointAuthMethod === "none" && input.grant_types?.includes("client_credentials")) {
        throw badRequest("grant_types: client_credentials needs a client secret; a public client (none) cannot use it");
      }
      if (input.allowed_scopes) await this.assertScopesExist(tx, actor, resourceServerId, input.allowed_scopes);
      const updated = await tx.client.update({
        where: { id: current.id },
        data: {
          clientName: input.client_name,
          description: input.description,
          redirectUris: input.redirect_uris,
          grantTypes: input.grant_types,
          allowedScopes: input.allowed_scopes,
          tokenLifetime: input.token_lifetime,
          registrationMetadata:
            input.post_logout_redirect_uris !== undefined || input.id_token_signed_response_alg !== undefined ? oidcMetadata(current.registrationMetadata, input) : undefined,
          updatedAt: this.clock.now(),
        },
      });
      return updated;
    });
    return this.view(actor.tenantId, resourceServerId, row);
  }

  /**
   * Revokes the client: it cannot obtain tokens any more and every token it holds introspects
   * inactive from the moment this returns. The record is kept (status "revoked") for the audit
   * trail and the list filter. Idempotent. Affects only this workspace.
   */
  async revoke(actor: Actor, resourceServerId: string, clientId: string): Promise<ClientView> {
    assertCanWrite(actor);
    const { client, connection } = await this.db.$transaction(async (tx) => {
      const found = await this.findAny(tx, actor, resourceServerId, clientId);
      const now = this.clock.now();
      // A dcr/cimd client: only its connection to this server is revoked (spec: "Revoking a client
      // from one resource server affects only that workspace"); its other connections stay.
      if (found.connection) {
        if (found.connection.status === "revoked") return found;
        const revoked = await tx.connection.update({ where: { id: found.connection.id }, data: { status: "revoked", revokedAt: now } });
        await recordAuditEvent(tx, { action: AUDIT_ACTIONS.connectionRevoked, target: { type: "connection", id: revoked.id }, detail: { client_id: found.client.clientId, resource_server_id: resourceServerId } });
        return { client: found.client, connection: revoked };
      }
      if (found.client.status === "revoked") return found;
      const updated = await tx.client.update({ where: { id: found.client.id }, data: { status: "revoked", revokedAt: now, updatedAt: now } });
      await recordAuditEvent(tx, { action: AUDIT_ACTIONS.clientRevoked, target: { type: "client", id: updated.clientId } });
      return { client: updated, connection: null };
    });
    return this.view(actor.tenantId, resourceServerId, client, connection);
  }

  /** Revokes a dcr/cimd client's connection to this server (404 when it has none here): revoke() for connections only. */
  async revokeConnection(actor: Actor, resourceServerId: string, clientId: string): Promise<ClientView> {
    assertCanWrite(actor);
    const { connection } = await this.findAny(this.db, actor, resourceServerId, clientId);
    if (!connection) throw notFound("connection");
    return this.revoke(actor, resourceServerId, clientId);
  }

  /**
   * Replaces the client's secret; the new one is in the answer and nowhere else. With
   * `grace_seconds` > 0 the old secret stays valid until then (a zero-downtime roll-over: deploy
   * the new secret, then let the old one lapse); otherwise it is refused from the commit on. Only
   * the secret replaced now keeps a grace: a rotation during a grace ends the older one at once.
   * The row write drops the client's cache entry on every instance (the unit of work), and each
   * instance then checks the grace expiry against its own clock per request.
   */
  async rotateSecret(actor: Actor, resourceServerId: string, clientId: string, input: RotateSecretInput): Promise<RotatedSecretView> {
    assertCanWrite(actor);
    const { secret, secretHash } = this.newSecret();
    const graceSeconds = input.grace_seconds ?? 0;
    const row = await this.db.$transaction(async (tx) => {
      const current = await this.find(tx, actor, resourceServerId, clientId);
      if (current.status === "revoked") throw conflict("client is revoked");
      if (current.secretHash === null) throw conflict("client is public (token_endpoint_auth_method none): it has no secret to rotate");
      const now = this.clock.now();
      const graced = graceSeconds > 0;
      // Compare-and-set on the secret read above: of two rotations racing from the same secret, one
      // wins and the other changes nothing (409), so no answered secret is silently lost and the
      // graced previous secret is always the one the winner replaced.
      const won = await tx.client.updateMany({
        where: { id: current.id, secretHash: current.secretHash },
        data: {
          secretHash,
          previousSecretHash: graced ? current.secretHash : null,
          previousSecretExpiresAt: graced ? new Date(now.getTime() + graceSeconds * 1000) : null,
          updatedAt: now,
        },
      });
      if (won.count === 0) throw conflict("the client's secret was rotated by another request at the same time; nothing changed, rotate again");
      await recordAuditEvent(tx, { action: AUDIT_ACTIONS.clientSecretRotated, target: { type: "client", id: current.clientId }, detail: { grace_seconds: graceSeconds } });
      return tx.client.findUniqueOrThrow({ where: { id: current.id } });
    });
    return {
      ...(await this.view(actor.tenantId, resourceServerId, row)),
      client_secret: secret,
      client_secret_expires_at: 0,
      rotated_at: row.updatedAt.toISOString(),
      previous_secret_expires_at: row.previousSecretExpiresAt?.toISOString() ?? null,
    };
  }

  /**
   * Approves a client's staged redirect-URI change (CIMD: when a client's metadata document lists
   * new redirect URIs, the change waits in stagedRedirectUris until an administrator of the
   * workspace approves it). Applies the staged list and clears it.
   */
  async approveRedirects(actor: Actor, resourceServerId: string, clientId: string): Promise<ClientView & { staged_redirect_uris: null; previous_redirect_uris: string[] }> {
    assertCanWrite(actor);
    const { client, previous, connection } = await this.db.$transaction(async (tx) => {
      // A CIMD client is approved through a server it is connected to; the approved set is the client's own.
      const { client: current, connection } = await this.findAny(tx, actor, resourceServerId, clientId);
      const staged = current.stagedRedirectUris as string[] | null;
      if (staged === null || staged === undefined) throw conflict("no redirect-URI change is staged for this client; nothing to approve");
      const updated = await tx.client.update({
        where: { id: current.id },
        data: { redirectUris: staged, stagedRedirectUris: DbNull, updatedAt: this.clock.now() },
      });
      return { client: updated, previous: current.redirectUris as string[], connection };
    });
    return { ...(await this.view(actor.tenantId, resourceServerId, client, connection)), staged_redirect_uris: null, previous_redirect_uris: previous };
  }

  /**
   * For the transaction that deletes a scope of a server: removes the scope from every client's
   * configured allowed_scopes, so re-creating a scope with the same id later does not silently
   * give it back. Called through the catalog's scope-deletion hook (wired in app.ts).
   */
  async removeDeletedScope(tx: DbOrTx, tenantId: string, resourceServerId: string, scopeKey: string): Promise<void> {
    const rows = await tx.client.findMany({ where: { tenantId, resourceServerId }, select: { id: true, allowedScopes: true } });
    const touched = rows.filter((r) => (r.allowedScopes as string[]).includes(scopeKey));
    for (const r of touched) {
      await tx.client.update({ where: { id: r.id }, data: { allowedScopes: (r.allowedScopes as string[]).filter((s) => s !== scopeKey) } });
    }
  }

  /** A fresh secret and the hash that is stored instead of it. */
  private newSecret(): { secret: string; secretHash: string } {
    const secret = this.ids.token(SECRET_BYTES);
    return { secret, secretHash: hashSecret(this.pepper, secret) };
  }

  /** A client pre-registered for this server, or a dcr/cimd client connected to it (with that connection), or 404. */
  private async findAny(tx: DbOrTx, actor: Actor, resourceServerId: string, clientId: string): Promise<{ client: Client; connection: Connection | null }> {
    await this.servers.findLive(tx, actor, resourceServerId);
    const c = await tx.client.findUnique({
      where: { clientId },
      include: { connections: { where: { resourceServerId, tenantId: actor.tenantId }, take: 1 } },
    });
    if (c && c.tenantId === actor.tenantId && c.resourceServerId === resourceServerId) return { client: c, connection: null };
    if (c && c.tenantId === null && c.connections[0]) return { client: c, connection: c.connections[0] };
    throw notFound("client");
  }

  /** The client of this workspace registered against this live server, or 404. */
  private async find(tx: DbOrTx, actor: Actor, resourceServerId: string, clientId: string): Promise<Client> {
    await this.servers.findLive(tx, actor, resourceServerId);
    const c = await tx.client.findFirst({ where: { clientId, tenantId: actor.tenantId, resourceServerId } });
    if (!c) throw notFound("client");
    return c;
  }

  /** allowed_scopes must be scopes of that resource server (its Scope records, by key). */
  private async assertScopesExist(tx: DbOrTx, actor: Actor, resourceServerId: string, scopes: string[]): Promise<void> {
    if (scopes.length === 0) return;
    const found = await tx.scope.findMany({
      where: { tenantId: actor.tenantId, resourceServerId, key: { in: scopes } },
      select: { key: true },
    });
    const known = new Set(found.map((s) => s.key));
    const unknown = scopes.filter((s) => !known.has(s));
    if (unknown.length > 0) throw badRequest(`allowed_scopes: not a scope of this resource server: ${unknown.join(", ")}`);
  }
}

/**
 * A pre-registered client's OpenID Connect settings, kept where dcr/cimd clients keep theirs
 * (registrationMetadata): post_logout_redirect_uris and id_token_signed_response_alg.
 */
function oidcMetadata(current: unknown, input: { post_logout_redirect_uris?: string[]; id_token_signed_response_alg?: string }): Prisma.InputJsonObject {
  const base = (typeof current === "object" && current !== null ? current : {}) as Record<string, unknown>;
  return {
    ...base,
    ...(input.post_logout_redirect_uris !== undefined ? { post_logout_redirect_uris: input.post_logout_redirect_uris } : {}),
    ...(input.id_token_signed_response_alg !== undefined ? { id_token_signed_response_alg: input.id_token_signed_response_alg } : {}),
  } as Prisma.InputJsonObject;
}
