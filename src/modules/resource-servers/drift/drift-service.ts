// Monitoring of post-activation policy changes: list (all or undismissed) and dismiss.
// Dismissal keeps the row forever (spec) and is idempotent: a second dismissal answers the
// event as it is, with the first dismissal's time and administrator.
import type { Db } from "../../../storage";
import type { Clock } from "../../../shared/clock";
import { notFound } from "../../../shared/errors";
import { type Actor, assertCanRead, assertCanWrite } from "../../../shared/actor";
import type { ResourceServerService } from "../resource-server-service";
import { FIRST_PAGE, type Page, type PageRequest } from "../../../shared/pagination";
import { DRIFT_EVENT_LIST, toDriftEventView, type DriftEventView } from "./views";

export class DriftService {
  constructor(
    private readonly db: Db,
    private readonly servers: ResourceServerService,
    private readonly clock: Clock,
  ) {}

  /** One page of the server's drift events, newest first (DRIFT_EVENT_LIST). */
  async list(actor: Actor, rsId: string, opts: { undismissed?: boolean } & PageRequest = FIRST_PAGE): Promise<Page<DriftEventView>> {
    assertCanRead(actor);
    await this.servers.findLive(this.db, actor, rsId);
    const rows = await this.db.driftEvent.findMany({
      where: DRIFT_EVENT_LIST.where({ rsId, tenantId: actor.tenantId, ...(opts.undismissed ? { dismissedAt: null } : {}) }, opts.cursor),
      orderBy: DRIFT_EVENT_LIST.orderBy,
      take: opts.limit + 1,
    });
    return DRIFT_EVENT_LIST.page(rows, opts.limit, toDriftEventView);
  }

  async dismiss(actor: Actor, rsId: string, eventId: string): Promise<DriftEventView> {
    assertCanWrite(actor);
    const event = await this.db.$transaction(async (tx) => {
      await this.servers.findLive(tx, actor, rsId);
      const where = { id: eventId, rsId, tenantId: actor.tenantId };
      // Guarded on dismissedAt so two concurrent dismissals record one administrator.
      await tx.driftEvent.updateMany({ where: { ...where, dismissedAt: null }, data: { dismissedAt: this.clock.now(), dismissedBy: actor.userId } });
      const row = await tx.driftEvent.findFirst({ where });
      if (!row) throw notFound("drift event");
      return row;
    });
    return toDriftEventView(event);
  }
}
