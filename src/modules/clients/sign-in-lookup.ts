// What the end-user sign-in (/oauth/authorize) needs to know about a client: its name for the
// pages, its redirect URIs, grant types and allowed scopes. Not a hot path (once per sign-in).
import type { Db } from "../../storage";
import type { CimdClients } from "./cimd/cimd-clients";
import { isCimdClientId } from "./cimd/client-id";

export async function findClientForSignIn(db: Db, clientId: string) {
  const c = await db.client.findUnique({ where: { clientId } });
  if (!c) return null;
  return {
    clientId: c.clientId,
    clientName: c.clientName,
    tenantId: c.tenantId,
    resourceServerId: c.resourceServerId,
    registrationMode: c.registrationMode,
    status: c.status,
    redirectUris: c.redirectUris as string[],
    grantTypes: c.grantTypes as string[],
    allowedScopes: c.allowedScopes as string[],
  };
}

export type ClientForSignIn = NonNullable<Awaited<ReturnType<typeof findClientForSignIn>>>;

/**
 * The sign-in's client lookup: a CIMD client_id (an https URL) first has its metadata document
 * fetched or reused (cimd/cimd-clients.ts); a document that cannot be used refuses the request
 * with its reason (shown on the error page: the request may not be redirected).
 */
export class SignInClientLookup {
  constructor(
    private readonly db: Db,
    private readonly cimd: CimdClients,
  ) {}

  /** `address`: the requester's, which CIMD document fetches are counted against. */
  async find(clientId: string, address?: string): Promise<ClientForSignIn | { refused: string; retryAfter?: number } | null> {
    if (isCimdClientId(clientId)) {
      const outcome = await this.cimd.ensure(clientId, address);
      if (!outcome.ok) return { refused: outcome.reason, retryAfter: outcome.retryAfter };
    }
    return findClientForSignIn(this.db, clientId);
  }
}
