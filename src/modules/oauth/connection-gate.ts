// Whether a dcr/cimd client may still get tokens for a server it is connected to (DESIGN "Clients
// and connections"): the server still accepts the client's registration mode (removing a mode
// stops new tokens for clients of that mode; issued ones keep their expiry) and the client's
// connection to the server is approved (a revoked connection gets nothing more). Pre-registered
// clients are bound to their server by their own record and pass. From memory on a hit.
import type { RegisteredClient } from "../clients";
import type { ResourceServerRegistry } from "../resource-servers";
import { oauthError, type OAuthError } from "./errors";

export interface ConnectionFactsLookup {
  get(clientId: string, resourceServerId: string): { tenantId: string; status: string } | null | Promise<{ tenantId: string; status: string } | null>;
}

export class ConnectionGate {
  constructor(
    private readonly servers: ResourceServerRegistry,
    private readonly connections: ConnectionFactsLookup,
  ) {}

  /** The refusal (invalid_grant, with the reason logged), or undefined when the client may get a token for `resource` in `tenantId`. */
  async refusal(client: RegisteredClient, tenantId: string, resource: string): Promise<OAuthError | undefined> {
    if (client.tenantId !== null) return undefined;
    const server = await this.servers.findByResource(tenantId, resource);
    if (!server) return oauthError("invalid_grant", "the grant's resource server is gone");
    if (!server.registrationModes.includes(client.registrationMode)) return oauthError("invalid_grant", `the resource server no longer accepts ${client.registrationMode} clients`);
    const connection = await this.connections.get(client.clientId, server.id);
    if (!connection || connection.status !== "approved" || connection.tenantId !== tenantId) return oauthError("invalid_grant", "the client's connection to the resource server is revoked");
    return undefined;
  }
}
