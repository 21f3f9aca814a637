// Deliveries as an administrator sees them (/svc/exsvc): a webhook's deliveries, the workspace's
// dead-letter list (status=dead), one delivery with its payload, manual redelivery, and a test
// message to one endpoint. Redelivery keeps the message id (webhook-id), so a receiver that did
// get it can tell; it starts a fresh series of attempts.
import { recordAuditEvent, type Db } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { conflict, notFound } from "../../shared/errors";
import { type Actor, assertCanRead, assertCanWrite } from "../../shared/actor";
import type { Page } from "../../shared/pagination";
import { AUDIT_ACTIONS } from "../audit";
import { messageBody } from "./fanout";
import { DELIVERY_LIST, type ListDeliveriesQuery } from "./schemas";
import type { SubscriptionService } from "./subscription-service";
import { toDeliveryView, type DeliveryView } from "./views";

export const TEST_EVENT_TYPE = "webhook.test";

export class DeliveryService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly subscriptions: Pick<SubscriptionService, "find">,
    /** Wakes this instance's dispatcher (a new or redelivered message need not wait for the next poll). */
    private readonly wake: () => void,
  ) {}

  /** One page of deliveries, newest first: of one webhook, or of the whole workspace (e.g. status=dead). */
  async list(actor: Actor, query: ListDeliveriesQuery, webhookId?: string): Promise<Page<DeliveryView>> {
    assertCanRead(actor);
    if (webhookId !== undefined) await this.subscriptions.find(this.db, actor, webhookId);
    const rows = await this.db.webhookDelivery.findMany({
      where: DELIVERY_LIST.where(
        { tenantId: actor.tenantId, ...(webhookId ? { subscriptionId: webhookId } : {}), ...(query.status ? { status: query.status } : {}) },
        query.cursor,
      ),
      orderBy: DELIVERY_LIST.orderBy,
      take: query.limit + 1,
    });
    return DELIVERY_LIST.page(rows, query.limit, toDeliveryView);
  }

  async get(actor: Actor, id: string): Promise<DeliveryView> {
    assertCanRead(actor);
    return toDeliveryView(await this.find(this.db, actor, id));
  }

  /** Sends a delivered or dead message again (a fresh series of attempts); 409 while it is still pending. */
  async redeliver(actor: Actor, id: string): Promise<DeliveryView> {
    assertCanWrite(actor);
    const row = await this.db.$transaction(async (tx) => {
      const d = await this.find(tx, actor, id);
      if (d.status === "pending" || d.status === "sending") throw conflict("the delivery is still being attempted; redeliver it once it is delivered or dead");
      const updated = await tx.webhookDelivery.update({
        where: { id },
        data: { status: "pending", attempts: 0, nextAttemptAt: this.clock.now(), lockedUntil: null, lastError: null, lastStatus: null, deliveredAt: null },
      });
      await recordAuditEvent(tx, { action: AUDIT_ACTIONS.webhookRedelivered, target: { type: "webhook_delivery", id }, detail: { webhook_id: d.subscriptionId, event_type: d.eventType, previous_status: d.status } });
      return updated;
    });
    this.wake();
    return toDeliveryView(row);
  }

  /** Queues a `webhook.test` message to one endpoint (whatever its event types) and wakes the dispatcher. */
  async sendTest(actor: Actor, webhookId: string): Promise<DeliveryView> {
    assertCanWrite(actor);
    const row = await this.db.$transaction(async (tx) => {
      const webhook = await this.subscriptions.find(tx, actor, webhookId);
      const now = this.clock.now();
      const id = this.ids.uuid();
      const created = await tx.webhookDelivery.create({
        data: {
          id,
          tenantId: actor.tenantId,
          subscriptionId: webhook.id,
          eventId: null,
          eventType: TEST_EVENT_TYPE,
          payload: messageBody(TEST_EVENT_TYPE, now.toISOString(), { webhook_id: webhook.id, workspace_id: actor.tenantId, message: "a test message from Toolgate" }),
          status: "pending",
          nextAttemptAt: now,
          createdAt: now,
        },
      });
      await recordAuditEvent(tx, { action: AUDIT_ACTIONS.webhookTestSent, target: { type: "webhook_subscription", id: webhook.id }, detail: { delivery_id: id } });
      return created;
    });
    this.wake();
    return toDeliveryView(row);
  }

  private async find(tx: Pick<Db, "webhookDelivery">, actor: Actor, id: string) {
    const d = await tx.webhookDelivery.findFirst({ where: { id, tenantId: actor.tenantId } });
    if (!d) throw notFound("delivery");
    return d;
  }
}
