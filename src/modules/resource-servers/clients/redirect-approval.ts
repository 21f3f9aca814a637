// Approval of a client's staged redirect-URI change (CIMD: when a client's metadata document
// lists new redirect URIs, the change waits in stagedRedirectUris until an administrator of the
// workspace approves it). Approval applies the staged list, clears it, and bumps the `clients`
// cache version so the authorization endpoint of every instance checks the new list.
import type { Db } from "../../../storage";
import type { CacheVersions } from "../../../storage";
import type { Clock } from "../../../shared/clock";
import { conflict, notFound } from "../../../shared/errors";
import { type Actor, assertCanWrite } from "../../../shared/actor";
import { DbNull } from "@prisma/client/runtime/client";
import { toClientView, type ClientView } from "../../clients";
import type { ResourceServerService } from "../resource-server-service";

export class RedirectApprovalService {
  constructor(
    private readonly db: Db,
    private readonly servers: ResourceServerService,
    private readonly versions: CacheVersions,
    private readonly clock: Clock,
  ) {}

  async approve(actor: Actor, rsId: string, clientId: string): Promise<ClientView & { staged_redirect_uris: null; previous_redirect_uris: string[] }> {
    assertCanWrite(actor);
    const { client, previous } = await this.db.$transaction(async (tx) => {
      await this.servers.findLive(tx, actor, rsId);
      const current = await tx.client.findFirst({ where: { clientId, tenantId: actor.tenantId, resourceServerId: rsId } });
      if (!current) throw notFound("client");
      const staged = current.stagedRedirectUris as string[] | null;
      if (staged === null || staged === undefined) throw conflict("no redirect-URI change is staged for this client; nothing to approve");
      const updated = await tx.client.update({
        where: { id: current.id },
        data: { redirectUris: staged, stagedRedirectUris: DbNull, updatedAt: this.clock.now() },
      });
      await this.versions.bump(tx, "clients");
      return { client: updated, previous: current.redirectUris as string[] };
    });
    await this.versions.notifyLocal("clients");
    return { ...toClientView(client), staged_redirect_uris: null, previous_redirect_uris: previous };
  }
}
