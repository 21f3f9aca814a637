// Input of /svc/exsvc (zod, strict): webhook subscriptions and their deliveries.
import { z } from "zod";
import type { Prisma } from "../../generated/sqlite/client";
import { Keyset, pageQuery } from "../../shared/pagination";
import { uniqueList } from "../../shared/zod";

/** An event type or a pattern: `role_binding.created`, `role_binding.*`, `*`. */
export const eventTypePatternSchema = z
  .string()
  .max(200)
  .regex(/^(\*|[a-z0-9_]+(\.[a-z0-9_]+)*(\.\*)?)$/, "must be an event type (role_binding.created), a family (role_binding.*) or *");

const urlSchema = z.string().trim().min(1).max(2048);
const descriptionSchema = z.string().trim().max(500);

export const createWebhookSchema = z
  .object({
    url: urlSchema,
    event_types: uniqueList(eventTypePatternSchema, 100).min(1, "must name at least one event type (or *)"),
    description: descriptionSchema.optional(),
  })
  .strict();
export type CreateWebhookInput = z.infer<typeof createWebhookSchema>;

export const updateWebhookSchema = z
  .object({
    url: urlSchema.optional(),
    event_types: uniqueList(eventTypePatternSchema, 100).min(1, "must name at least one event type (or *)").optional(),
    description: descriptionSchema.nullable().optional(),
    status: z.enum(["active", "disabled"]).optional(),
  })
  .strict()
  .refine((v) => Object.keys(v).length > 0, "nothing to update");
export type UpdateWebhookInput = z.infer<typeof updateWebhookSchema>;

export const DELIVERY_STATUSES = ["pending", "sending", "delivered", "dead"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** A workspace's webhooks, oldest first. */
export const WEBHOOK_LIST = new Keyset<{ createdAt: Date; id: string }, Prisma.WebhookSubscriptionWhereInput, Prisma.WebhookSubscriptionOrderByWithRelationInput[]>(
  "webhooks",
  [
    { field: "createdAt", dir: "asc", kind: "date" },
    { field: "id", dir: "asc", kind: "string" },
  ],
  (w) => [w.createdAt, w.id],
);

/** Deliveries, newest first. */
export const DELIVERY_LIST = new Keyset<{ createdAt: Date; id: string }, Prisma.WebhookDeliveryWhereInput, Prisma.WebhookDeliveryOrderByWithRelationInput[]>(
  "webhook_deliveries",
  [
    { field: "createdAt", dir: "desc", kind: "date" },
    { field: "id", dir: "desc", kind: "string" },
  ],
  (d) => [d.createdAt, d.id],
);

export const listWebhooksQuerySchema = z.object(pageQuery(WEBHOOK_LIST)).strict();
export const listDeliveriesQuerySchema = z.object({ status: z.enum(DELIVERY_STATUSES).optional(), ...pageQuery(DELIVERY_LIST) }).strict();
export type ListDeliveriesQuery = z.infer<typeof listDeliveriesQuerySchema>;
