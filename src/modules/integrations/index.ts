// External integrations (/svc/exsvc, docs/audit-and-integrations.md): webhook subscriptions with
// Standard Webhooks signatures, deliveries from the audit trail as outbox, the dead-letter list,
// and the JSON-lines log stream.
export { createIntegrations, type Integrations, type IntegrationDeps } from "./create";
export { SubscriptionService, ALLOW_PRIVATE_VARIABLE } from "./subscription-service";
export { DeliveryService, TEST_EVENT_TYPE } from "./delivery-service";
export { WebhookDispatcher, type DispatchOptions } from "./dispatcher";
export { EventConsumer } from "./event-consumer";
export { EVENT_TYPES, EVENT_SOURCES, messagesOf, matchesAny, type EventTypeInfo, type EventSource, type EventMessage } from "./event-types";
export { retryDelayMs, CIRCUIT_FAILURES, CIRCUIT_OPEN_MS, type RetryPolicy } from "./retry-policy";
export { signatureOf, webhookHeaders } from "./signing";
export { logLine } from "./log-stream";
export {
  createWebhookSchema,
  updateWebhookSchema,
  listWebhooksQuerySchema,
  listDeliveriesQuerySchema,
  DELIVERY_STATUSES,
  WEBHOOK_LIST,
  DELIVERY_LIST,
  type CreateWebhookInput,
  type UpdateWebhookInput,
  type ListDeliveriesQuery,
} from "./schemas";
export { toWebhookView, toDeliveryView, messageIdOf, type WebhookView, type DeliveryView, type CreatedWebhookView } from "./views";
