// Monitoring of post-activation policy changes: list (all or undismissed) and dismiss.
// Dismissal keeps the row forever (spec) and is idempotent: a second dismissal answers the
// event as it is, with the first dismissal's time and administrator.
import type { Db } from "../../../storage";
import type { Clock } from "../../../shared/clock";
import { notFound } from "../../../shared/errors";
import { type Actor, assertCanRead, assertCanWrite } from "../../../shared/actor";
import type { ResourceServerService } from "../resource-server-service";
import { DRIFT_ORDER, toDriftEventView, type DriftEventView } from "./views";

export class DriftService {
  constructor(
    private readonly db: Db,
    private readonly servers: ResourceServerService,
    private readonly clock: Clock,
  ) {}

  async list(actor: Actor, rsId: string, opts: { undismissed?: boolean } = {}): Promise<{ items: DriftEventView[]; count: number }> {
    assertCanRead(actor);
    await this.servers.findLive(this.db, actor, rsId);
    const rows = await this.db.driftEvent.findMany({
      where: { rsId, tenantId: actor.tenantId, ...(opts.undismissed ? { dismissedAt: null } : {}) },
      orderBy: DRIFT_ORDER,
    });
    return { items: rows.map(toDriftEventView), count: rows.length };
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
