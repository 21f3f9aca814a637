// The webhook fan-out: an audit-trail consumer (event-consumer.ts) that turns each event of a
// workspace into the deliveries its subscriptions asked for, in the same transaction that moves
// its cursor, so every (event, subscription) pair gets exactly one delivery row, once, whichever
// instance does it and whenever (after a crash, on restart). A chain with no active subscription
// is skipped without reading its events; a subscription receives only events that happened after
// it was created.
import type { DbOrTx } from "../../storage";
import { INSTALLATION_CHAIN } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import type { AuditEventView } from "../audit";
import type { ConsumerHandler } from "./event-consumer";
import { matchesAny, messagesOf } from "./event-types";

export const FANOUT_CONSUMER = "webhooks";

/** The JSON body of one message (Standard Webhooks "payload structure": type, timestamp, data). */
export function messageBody(type: string, timestamp: string, data: Record<string, unknown>): string {
  return JSON.stringify({ type, timestamp, data });
}

/** Whether a workspace has an active webhook (a per-entry cache, dropped by the unit of work when its webhooks change). */
export type HasWebhooks = (tenantId: string) => boolean | null | Promise<boolean | null>;

export function fanoutHandler(clock: Clock, ids: IdGenerator, hasWebhooks: HasWebhooks, onQueued: () => void): ConsumerHandler {
  let queued = false;
  const subscriptionsOf = (tx: DbOrTx, chain: string) =>
    tx.webhookSubscription.findMany({ where: { tenantId: chain, status: "active" }, select: { id: true, eventTypes: true, createdAt: true } });
  return {
    // From memory after the first look: a workspace without webhooks costs its writes nothing here.
    wants: async (_db, chain) => chain !== INSTALLATION_CHAIN && (await hasWebhooks(chain)) === true,
    async handle(tx, chain, events: AuditEventView[]) {
      const subscriptions = await subscriptionsOf(tx, chain);
      const now = clock.now();
      const rows = [];
      for (const event of events) {
        const at = new Date(event.occurred_at);
        for (const message of messagesOf(event)) {
          for (const s of subscriptions) {
            if (s.createdAt.getTime() > at.getTime() || !matchesAny(s.eventTypes as string[], message.type)) continue;
            rows.push({
              id: ids.uuid(),
              tenantId: chain,
              subscriptionId: s.id,
              eventId: event.id,
              eventType: message.type,
              payload: messageBody(message.type, event.occurred_at, message.data),
              status: "pending",
              nextAttemptAt: now,
              createdAt: now,
            });
          }
        }
      }
      if (rows.length > 0) {
        await tx.webhookDelivery.createMany({ data: rows });
        queued = true;
      }
    },
    // The dispatcher is woken once the deliveries are committed (before, another connection cannot see them).
    committed() {
      if (!queued) return;
      queued = false;
      onQueued();
    },
  };
}
