// Wire views of /svc/exsvc. A webhook's secret appears once, in the creation answer
// (subscription-service.ts), never in these views; a delivery's payload is what was signed.
import type { WebhookDelivery, WebhookSubscription } from "../../generated/sqlite/client";

export function toWebhookView(w: WebhookSubscription) {
  return {
    id: w.id,
    workspace_id: w.tenantId,
    url: w.url,
    description: w.description,
    event_types: w.eventTypes as string[],
    status: w.status,
    consecutive_failures: w.consecutiveFailures,
    circuit_open_until: w.circuitOpenUntil?.toISOString() ?? null,
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}
export type WebhookView = ReturnType<typeof toWebhookView>;
export type CreatedWebhookView = WebhookView & { secret: string };

export function toDeliveryView(d: WebhookDelivery) {
  return {
    id: d.id,
    webhook_id: d.subscriptionId,
    /** The Standard Webhooks message id (webhook-id header). */
    message_id: messageIdOf(d.id),
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.status === "pending" ? d.nextAttemptAt.toISOString() : null,
    last_status: d.lastStatus,
    last_error: d.lastError,
    created_at: d.createdAt.toISOString(),
    delivered_at: d.deliveredAt?.toISOString() ?? null,
    payload: JSON.parse(d.payload) as unknown,
  };
}
export type DeliveryView = ReturnType<typeof toDeliveryView>;

export const messageIdOf = (deliveryId: string) => `msg_${deliveryId}`;
