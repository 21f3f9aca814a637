// What the end-user sign-in (/oauth/authorize) needs to know about a client: its name for the
// pages, its redirect URIs, grant types and allowed scopes. Not a hot path (once per sign-in).
import type { Db } from "../../storage";

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
