// What the consent page names about the server a client asks to use (issue 10 "Registration
// hygiene"): the server's name, its workspace's name, and each requested scope's name and
// description, so the user knows what they grant and to whom. Once per sign-in: three small reads.
import type { Db } from "../../storage";

export interface ConsentDescription {
  serverName: string;
  workspaceName: string;
  scopes: Array<{ key: string; name: string; description: string | null }>;
}

export async function describeForConsent(db: Db, tenantId: string, resourceServerId: string, scopeKeys: readonly string[]): Promise<ConsentDescription> {
  const [server, workspace, scopes] = await Promise.all([
    db.resourceServer.findFirst({ where: { id: resourceServerId, tenantId }, select: { name: true } }),
    db.workspace.findUnique({ where: { id: tenantId }, select: { name: true } }),
    scopeKeys.length === 0
      ? Promise.resolve([])
      : db.scope.findMany({ where: { tenantId, resourceServerId, key: { in: [...scopeKeys] } }, select: { key: true, name: true, description: true } }),
  ]);
  return { serverName: server?.name ?? "(unknown server)", workspaceName: workspace?.name ?? "(unknown workspace)", scopes };
}
