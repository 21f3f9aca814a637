// Dynamic client registration (RFC 7591) and its management protocol (RFC 7592). Unauthenticated
// registration: anyone may register (MCP clients do, with no initial access token; the HTTP layer
// limits the rate per address). A registered client belongs to no workspace: it reaches a
// resource server through a connection created at its first authorization there
// (connections.ts, docs/decisions/0020-connections.md).
//
// Credentials: the client secret (confidential methods only) and the registration access token
// are 256-bit random strings shown in the answer and stored as peppered hashes
// (docs/decisions/0003-client-secrets.md). An RFC 7592 read answers with the token it was sent
// (still the valid one: a read changes nothing, so reads in parallel or retried after a lost answer
// never leave the client holding a dead token); an update answers with a NEW one (RFC 7592 §3: "the
// authorization server MAY issue a new registration access token ... the client MUST discard the
// old one"), swapped by a compare-and-set on the old token's hash, so of two updates sent with one
// token exactly one succeeds and the other is refused having changed nothing
// (docs/decisions/0031-registration-access-token-rotation.md). No client_secret is returned (the
// client holds it; RFC 7592 §3 makes returning it optional).
import type { Db } from "../../storage";
import type { Clock } from "../../shared/clock";
import { epochSeconds } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { hashSecret, verifySecret } from "../../shared/crypto";
import type { Client } from "../../generated/sqlite/client";
import { RegistrationError, SERVER_MANAGED_FIELDS, readClientMetadata, type ClientMetadata } from "./registration-metadata";
import { CLIENT_ID_PREFIX, CLIENT_ID_BYTES, SECRET_BYTES } from "./client-service";
import { TOKEN_LIFETIME } from "./schemas";

/** The RFC 7591 §3.2.1 answer (and the RFC 7592 §3 client information response). */
export type RegistrationResponse = ClientMetadata & {
  client_id: string;
  client_id_issued_at: number;
  client_secret?: string;
  client_secret_expires_at?: number;
  registration_access_token: string;
  registration_client_uri: string;
};

/** RFC 7592 §2.1/§2.2: an unknown client or a wrong registration access token (401 invalid_token, alike). */
export class RegistrationAccessDenied extends Error {
  constructor() {
    super("the registration access token is invalid for this client");
  }
}

/** Counters of registration traffic, for monitoring (a metrics endpoint reads them). */
export interface RegistrationStats {
  registered: number;
  rejected: number;
  read: number;
  updated: number;
  deleted: number;
  /** Registrations removed because they never connected (pruneIdle). */
  pruned: number;
}

const DUMMY_HASH = "x".repeat(43);
/** Registrations examined per pruning batch (a bounded delete; the next run continues). */
export const PRUNE_BATCH = 200;

export class RegistrationService {
  readonly stats: RegistrationStats = { registered: 0, rejected: 0, read: 0, updated: 0, deleted: 0, pruned: 0 };

  constructor(
    private readonly db: Db,
    private readonly pepper: Buffer,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    /** Where RFC 7592 management lives: `${base}/<client_id>`. */
    private readonly configurationBase: string,
  ) {}

  /** POST /oauth/register. Throws RegistrationError (400) for bad metadata. */
  async register(body: unknown): Promise<RegistrationResponse> {
    const metadata = this.read(body);
    const now = this.clock.now();
    const secret = metadata.token_endpoint_auth_method === "none" ? undefined : this.ids.token(SECRET_BYTES);
    const registrationToken = this.ids.token(SECRET_BYTES);
    const row = await this.db.client.create({
      data: {
        id: this.ids.uuid(),
        clientId: CLIENT_ID_PREFIX + this.ids.token(CLIENT_ID_BYTES),
        tenantId: null,
        resourceServerId: null,
        ...columnsOf(metadata),
        // MCP clients act for a signed-in user: shown as agents in a server's client list.
        kind: "agent",
        registrationMode: "dcr",
        status: "approved",
        secretHash: secret === undefined ? null : hashSecret(this.pepper, secret),
        allowedScopes: [],
        tokenLifetime: TOKEN_LIFETIME.default,
        registrationTokenHash: hashSecret(this.pepper, registrationToken),
        createdAt: now,
        updatedAt: now,
      },
    });
    this.stats.registered++;
    return { ...this.response(row, metadata, registrationToken), ...(secret === undefined ? {} : { client_secret: secret, client_secret_expires_at: 0 }) };
  }

  /** GET /oauth/register/:client_id (RFC 7592 §2.1): the registration, with the same token. */
  async get(clientId: string, registrationToken: string): Promise<RegistrationResponse> {
    const row = await this.authorize(clientId, registrationToken);
    this.stats.read++;
    return this.response(row, metadataOf(row), registrationToken);
  }

  /** PUT /oauth/register/:client_id (RFC 7592 §2.2): the body replaces the metadata. */
  async update(clientId: string, registrationToken: string, body: unknown): Promise<RegistrationResponse> {
    const row = await this.authorize(clientId, registrationToken);
    const b = (typeof body === "object" && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
    if (b.client_id !== clientId) throw this.rejected(new RegistrationError("invalid_client_metadata", "client_id: must be present and equal to the registered client_id (RFC 7592 §2.2)"));
    for (const field of SERVER_MANAGED_FIELDS) {
      if (b[field] !== undefined) throw this.rejected(new RegistrationError("invalid_client_metadata", `${field}: must not be sent in an update (RFC 7592 §2.2)`));
    }
    if (b.client_secret !== undefined && (typeof b.client_secret !== "string" || !verifySecret(this.pepper, b.client_secret, row.secretHash ?? DUMMY_HASH))) {
      throw this.rejected(new RegistrationError("invalid_client_metadata", "client_secret: does not match the registered secret"));
    }
    const metadata = this.read(body);
    if (metadata.token_endpoint_auth_method !== row.tokenEndpointAuthMethod) {
      throw this.rejected(new RegistrationError("invalid_client_metadata", `token_endpoint_auth_method: cannot change after registration (registered: ${row.tokenEndpointAuthMethod})`));
    }
    const next = this.ids.token(SECRET_BYTES);
    // Only while the token this update was authorized with is still the registered one.
    const { count } = await this.db.client.updateMany({
      where: { id: row.id, registrationTokenHash: row.registrationTokenHash },
      data: { ...columnsOf(metadata), registrationTokenHash: hashSecret(this.pepper, next), updatedAt: this.clock.now() },
    });
    if (count === 0) throw new RegistrationAccessDenied(); // a concurrent update (or deletion) came first
    this.stats.updated++;
    return this.response(row, metadata, next);
  }

  /**
   * DELETE /oauth/register/:client_id (RFC 7592 §2.3): the registration is gone, with its
   * connections; its tokens introspect inactive from the commit on (the client entry is dropped).
   */
  async remove(clientId: string, registrationToken: string): Promise<void> {
    const row = await this.authorize(clientId, registrationToken);
    await this.db.client.delete({ where: { id: row.id } });
    this.stats.deleted++;
  }

  /**
   * Removes dcr and cimd registrations older than `idleDays` that never connected to any server and
   * hold no live refresh token or unused code (registration is open to anyone; what never got used
   * should not accumulate). At most PRUNE_BATCH per call, oldest first; answers how many went.
   */
  async pruneIdle(idleDays: number): Promise<number> {
    if (idleDays <= 0) return 0;
    const now = this.clock.now();
    const cutoff = new Date(now.getTime() - idleDays * 86_400_000);
    return this.db.$transaction(async (tx) => {
      const candidates = await tx.client.findMany({
        where: { registrationMode: { in: ["dcr", "cimd"] }, createdAt: { lt: cutoff }, connections: { none: {} } },
        select: { id: true, clientId: true },
        orderBy: { createdAt: "asc" },
        take: PRUNE_BATCH,
      });
      if (candidates.length === 0) return 0;
      const ids = candidates.map((c) => c.clientId);
      const [refresh, codes] = await Promise.all([
        tx.refreshToken.findMany({ where: { clientId: { in: ids }, revokedAt: null, expiresAt: { gt: now } }, select: { clientId: true } }),
        tx.authorizationCode.findMany({ where: { clientId: { in: ids }, usedAt: null, expiresAt: { gt: now } }, select: { clientId: true } }),
      ]);
      const live = new Set([...refresh, ...codes].map((r) => r.clientId));
      const idle = candidates.filter((c) => !live.has(c.clientId)).map((c) => c.id);
      if (idle.length === 0) return 0;
      const { count } = await tx.client.deleteMany({ where: { id: { in: idle }, connections: { none: {} } } });
      this.stats.pruned += count;
      return count;
    });
  }

  private timer: NodeJS.Timeout | undefined;

  /** Prunes on a timer (off the request path) while the app runs. */
  startPruning(idleDays: number, intervalMs: number, onError: (e: unknown) => void): void {
    if (idleDays <= 0) return;
    this.timer = setInterval(() => this.pruneIdle(idleDays).catch(onError), intervalMs);
    this.timer.unref();
  }

  stopPruning(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The dcr client whose registration access token this is; RegistrationAccessDenied otherwise (same work either way). */
  private async authorize(clientId: string, registrationToken: string): Promise<Client> {
    const row = await this.db.client.findUnique({ where: { clientId } });
    const hash = row?.registrationMode === "dcr" ? row.registrationTokenHash : null;
    const ok = verifySecret(this.pepper, registrationToken, hash ?? DUMMY_HASH);
    if (!row || !hash || !ok) throw new RegistrationAccessDenied();
    return row;
  }

  private read(body: unknown): ClientMetadata {
    try {
      return readClientMetadata(body);
    } catch (e) {
      throw e instanceof RegistrationError ? this.rejected(e) : e;
    }
  }

  private rejected(e: RegistrationError): RegistrationError {
    this.stats.rejected++;
    return e;
  }

  private response(row: Client, metadata: ClientMetadata, registrationToken: string): RegistrationResponse {
    const secretExpiry = row.secretHash === null ? {} : { client_secret_expires_at: 0 };
    return {
      client_id: row.clientId,
      client_id_issued_at: epochSeconds(row.createdAt),
      ...metadata,
      ...secretExpiry,
      registration_access_token: registrationToken,
      registration_client_uri: `${this.configurationBase}/${encodeURIComponent(row.clientId)}`,
    };
  }
}

/** The Client columns a registration sets from its metadata (the rest of it kept for echoing). */
function columnsOf(m: ClientMetadata) {
  const { redirect_uris, grant_types, token_endpoint_auth_method, client_name, ...rest } = m;
  return {
    clientName: client_name ?? "Unnamed client",
    redirectUris: redirect_uris,
    grantTypes: grant_types,
    tokenEndpointAuthMethod: token_endpoint_auth_method,
    registrationMetadata: { ...rest, ...(client_name === undefined ? {} : { client_name }) },
  };
}

/** The registered metadata back from a row (RFC 7592 reads echo what was registered). */
function metadataOf(row: Client): ClientMetadata {
  const stored = (row.registrationMetadata ?? {}) as Omit<ClientMetadata, "redirect_uris" | "grant_types" | "token_endpoint_auth_method">;
  return {
    ...stored,
    redirect_uris: row.redirectUris as string[],
    grant_types: row.grantTypes as string[],
    token_endpoint_auth_method: row.tokenEndpointAuthMethod as ClientMetadata["token_endpoint_auth_method"],
  };
}
