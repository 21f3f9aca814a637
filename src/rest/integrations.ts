// /svc/exsvc: external integrations (docs/audit-and-integrations.md). Webhook subscriptions of the
// token's workspace, their deliveries, the dead-letter list, redelivery and test messages, and the
// list of event types.
import { Router } from "express";
import { z } from "zod";
import { EVENT_TYPES, createWebhookSchema, listDeliveriesQuerySchema, listWebhooksQuerySchema, updateWebhookSchema, type Integrations } from "../modules/integrations";
import { actorOf } from "./admin-auth";
import { parseWith } from "./validation";

const webhookParams = z.object({ webhook_id: z.string().uuid("must be a UUID") });
const deliveryParams = z.object({ delivery_id: z.string().uuid("must be a UUID") });

export function integrationsRouter(integrations: Pick<Integrations, "subscriptions" | "deliveries">): Router {
  const { subscriptions, deliveries } = integrations;
  const r = Router();
  r.get("/svc/exsvc/event-types", (_req, res) => {
    actorOf(res);
    res.json({ items: EVENT_TYPES, count: EVENT_TYPES.length, next_cursor: null });
  });
  r.post("/svc/exsvc/webhooks", async (req, res) => {
    res.status(201).json(await subscriptions.create(actorOf(res), parseWith(createWebhookSchema, req.body)));
  });
  r.get("/svc/exsvc/webhooks", async (req, res) => {
    res.json(await subscriptions.list(actorOf(res), parseWith(listWebhooksQuerySchema, req.query, "query")));
  });
  r.get("/svc/exsvc/webhooks/:webhook_id", async (req, res) => {
    res.json(await subscriptions.get(actorOf(res), parseWith(webhookParams, req.params, "path").webhook_id));
  });
  r.patch("/svc/exsvc/webhooks/:webhook_id", async (req, res) => {
    const { webhook_id } = parseWith(webhookParams, req.params, "path");
    res.json(await subscriptions.update(actorOf(res), webhook_id, parseWith(updateWebhookSchema, req.body)));
  });
  r.delete("/svc/exsvc/webhooks/:webhook_id", async (req, res) => {
    await subscriptions.remove(actorOf(res), parseWith(webhookParams, req.params, "path").webhook_id);
    res.status(204).end();
  });
  r.post("/svc/exsvc/webhooks/:webhook_id/test", async (req, res) => {
    res.status(202).json(await deliveries.sendTest(actorOf(res), parseWith(webhookParams, req.params, "path").webhook_id));
  });
  r.get("/svc/exsvc/webhooks/:webhook_id/deliveries", async (req, res) => {
    const { webhook_id } = parseWith(webhookParams, req.params, "path");
    res.json(await deliveries.list(actorOf(res), parseWith(listDeliveriesQuerySchema, req.query, "query"), webhook_id));
  });
  r.get("/svc/exsvc/deliveries", async (req, res) => {
    res.json(await deliveries.list(actorOf(res), parseWith(listDeliveriesQuerySchema, req.query, "query")));
  });
  r.get("/svc/exsvc/deliveries/:delivery_id", async (req, res) => {
    res.json(await deliveries.get(actorOf(res), parseWith(deliveryParams, req.params, "path").delivery_id));
  });
  r.post("/svc/exsvc/deliveries/:delivery_id/redeliver", async (req, res) => {
    res.status(202).json(await deliveries.redeliver(actorOf(res), parseWith(deliveryParams, req.params, "path").delivery_id));
  });
  return r;
}
