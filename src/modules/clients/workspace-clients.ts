// Workspace-wide pre-registered clients: the credentials of an agent (modules/agents,
// docs/decisions/0040-agents.md). Unlike a server's pre-registered client, such a client is bound
// to no resource server: it may ask a token for any live server of its workspace (RFC 8707
// `resource`, required), with the scopes the role bindings of its service account grant there
// (oauth/grants/client-credentials.ts). Called inside the agents module's transactions (the
// clients module owns the table); every write drops the client's hot-path entry (unit of work).
import type { DbOrTx } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { hashSecret } from "../../shared/crypto";
import { notFound } from "../../shared/errors";
import { CLIENT_ID_BYTES, CLIENT_ID_PREFIX, SECRET_BYTES } from "./client-service";
import { TOKEN_LIFETIME } from "./schemas";

export interface WorkspaceClient {
  /** Row id: the subject id of its service-account bindings. */
  id: string;
  clientId: string;
  status: string;
  lastUsedAt: Date | null;
}

export class WorkspaceClients {
  constructor(
    private readonly pepper: Buffer,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /** A confidential client_credentials client of the workspace; the secret is in the answer only. */
  async create(tx: DbOrTx, input: { tenantId: string; name: string; description: string | null }): Promise<{ client: WorkspaceClient; secret: string }> {
    const secret = this.ids.token(SECRET_BYTES);
    const now = this.clock.now();
    const client = await tx.client.create({
      data: {
        id: this.ids.uuid(),
        clientId: CLIENT_ID_PREFIX + this.ids.token(CLIENT_ID_BYTES),
        tenantId: input.tenantId,
        resourceServerId: null,
        clientName: input.name,
        description: input.description,
        kind: "agent",
        registrationMode: "prereg",
        status: "approved",
        secretHash: hashSecret(this.pepper, secret),
        tokenEndpointAuthMethod: "client_secret_basic",
        redirectUris: [],
        grantTypes: ["client_credentials"],
        allowedScopes: [],
        tokenLifetime: TOKEN_LIFETIME.default,
        createdAt: now,
        updatedAt: now,
      },
      select: { id: true, clientId: true, status: true, lastUsedAt: true },
    });
    return { client, secret };
  }

  /** approved <-> disabled: a disabled client gets no token, and its tokens introspect inactive from the commit on. */
  async setEnabled(tx: DbOrTx, tenantId: string, id: string, enabled: boolean): Promise<void> {
    const { count } = await tx.client.updateMany({
      where: { id, tenantId, resourceServerId: null, status: enabled ? "disabled" : "approved" },
      data: { status: enabled ? "approved" : "disabled", updatedAt: this.clock.now() },
    });
    if (count === 0) await this.find(tx, tenantId, id); // 404 when it is not there; otherwise already in that state
  }

  /** A new secret (the old one stops working at once); the secret is in the answer only. */
  async rotateSecret(tx: DbOrTx, tenantId: string, id: string): Promise<string> {
    await this.find(tx, tenantId, id);
    const secret = this.ids.token(SECRET_BYTES);
    await tx.client.update({ where: { id }, data: { secretHash: hashSecret(this.pepper, secret), previousSecretHash: null, previousSecretExpiresAt: null, updatedAt: this.clock.now() } });
    return secret;
  }

  /** Revoked for good (the agent is deleted). */
  async revoke(tx: DbOrTx, tenantId: string, id: string): Promise<void> {
    const now = this.clock.now();
    await tx.client.updateMany({ where: { id, tenantId, resourceServerId: null }, data: { status: "revoked", revokedAt: now, updatedAt: now } });
  }

  async find(tx: DbOrTx, tenantId: string, id: string): Promise<WorkspaceClient> {
    const c = await tx.client.findFirst({ where: { id, tenantId, resourceServerId: null }, select: { id: true, clientId: true, status: true, lastUsedAt: true } });
    if (!c) throw notFound("client");
    return c;
  }
}
