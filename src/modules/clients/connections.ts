// Connections: a dcr or cimd client's link to one resource server, and so to one workspace
// (DESIGN "Clients and connections", docs/decisions/0020-connections.md). Such a client belongs
// to no workspace when it registers; its first authorization for a server (the RFC 8707 `resource`
// of the request picks the server) creates the connection, approved at once for dcr and cimd
// (spec: "Approval is automatic"). Revoking it stops that client on that server only: its tokens
// for the server introspect inactive from the commit on (the connection entry below is dropped by
// the unit of work), its refresh tokens for the server are refused, other servers are untouched.
//
// Hot path: introspection and the token endpoint read a connection by (server, client_id) from a
// per-entry cache; a miss is one query on the unique (clientId, resourceServerId) index.
import type { Db } from "../../storage";
import type { CacheFactory } from "../../storage/cache-factory";
import type { EntryCache, MaybePromise } from "../../shared/entry-cache";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { isUniqueViolation } from "../../storage";
import type { ClientStatus } from "./schemas";

export interface ConnectionFacts {
  tenantId: string;
  status: ClientStatus;
}

export class ConnectionRegistry {
  private readonly cache: EntryCache<ConnectionFacts>;

  constructor(db: Db, caches: CacheFactory) {
    // Key "<server id>:<client_id>": the server id is a UUID, so the first colon splits (client ids may be URLs).
    this.cache = caches.create<ConnectionFacts>("connection", async (key) => {
      const at = key.indexOf(":");
      const row = await db.connection.findUnique({
        where: { clientId_resourceServerId: { clientId: key.slice(at + 1), resourceServerId: key.slice(0, at) } },
        select: { tenantId: true, status: true },
      });
      return row ? { tenantId: row.tenantId, status: row.status as ClientStatus } : null;
    });
  }

  peek(clientId: string, resourceServerId: string): ConnectionFacts | null | undefined {
    return this.cache.peek(`${resourceServerId}:${clientId}`);
  }

  get(clientId: string, resourceServerId: string): MaybePromise<ConnectionFacts | null> {
    return this.cache.get(`${resourceServerId}:${clientId}`);
  }
}

export interface ConnectInput {
  clientId: string;
  resourceServerId: string;
  tenantId: string;
  scopes: readonly string[];
  /** The user who signed in, and the roles through which they hold those scopes (the "Active connection row"). */
  userId: string;
  roles: ReadonlyArray<{ role_id: string; role_name: string }>;
}

/** The writes of connections (the clients module owns the table). */
export class ConnectionWriter {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /**
   * Records an authorization of `clientId` for a server: creates the connection on the first one
   * (approved: dcr and cimd need no admin approval), else stamps last_connected_at and the scopes.
   * false when the connection was revoked (a revoked connection is never revived by a sign-in) or
   * the client is gone.
   */
  async connect(input: ConnectInput): Promise<boolean> {
    const now = this.clock.now();
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        return await this.db.$transaction(async (tx) => {
          const client = await tx.client.findUnique({ where: { clientId: input.clientId }, select: { id: true, status: true, tenantId: true } });
          if (!client || client.status !== "approved" || client.tenantId !== null) return false;
          const key = { clientId_resourceServerId: { clientId: input.clientId, resourceServerId: input.resourceServerId } };
          const current = await tx.connection.findUnique({ where: key, select: { status: true } });
          if (current) {
            if (current.status === "revoked") return false;
            await tx.connection.update({ where: key, data: { lastConnectedAt: now, scopesGranted: [...input.scopes], rolesGranted: [...input.roles], lastUserId: input.userId } });
            return true;
          }
          await tx.connection.create({
            data: {
              id: this.ids.uuid(),
              clientRowId: client.id,
              clientId: input.clientId,
              resourceServerId: input.resourceServerId,
              tenantId: input.tenantId,
              status: "approved",
              scopesGranted: [...input.scopes],
              rolesGranted: [...input.roles],
              lastUserId: input.userId,
              firstConnectedAt: now,
              lastConnectedAt: now,
              createdAt: now,
              updatedAt: now,
            },
          });
          return true;
        });
      } catch (e) {
        // Two first authorizations at once: the loser finds the winner's row on the second pass.
        if (!isUniqueViolation(e) || attempt > 0) throw e;
      }
    }
    return false;
  }
}
