// Wire view of a drift event: the spec's field names (snake_case), timestamps as ISO 8601.
import type { DriftEvent, Prisma } from "../../../generated/sqlite/client";
import { Keyset, pageQuery } from "../../../shared/pagination";
import { z } from "zod";

export function toDriftEventView(e: DriftEvent) {
  return {
    id: e.id,
    rs_id: e.rsId,
    event_type: e.eventType,
    event_payload: e.eventPayload as Record<string, unknown>,
    occurred_at: e.occurredAt.toISOString(),
    occurred_by: e.occurredBy,
    dismissed_at: e.dismissedAt?.toISOString() ?? null,
    dismissed_by: e.dismissedBy,
  };
}
export type DriftEventView = ReturnType<typeof toDriftEventView>;

/** A server's drift events: newest first; events written together keep a stable order (the row id). */
export const DRIFT_EVENT_LIST = new Keyset<{ occurredAt: Date; id: string }, Prisma.DriftEventWhereInput, Prisma.DriftEventOrderByWithRelationInput[]>(
  "drift-events",
  [
    { field: "occurredAt", dir: "desc", kind: "date" },
    { field: "id", dir: "asc", kind: "string" },
  ],
  (e) => [e.occurredAt, e.id],
);
export const DRIFT_ORDER = DRIFT_EVENT_LIST.orderBy;

/** GET .../drift-events?undismissed=true|false&limit=&cursor= (strict: other parameters are a 400). */
export const listDriftEventsQuery = z
  .object({
    undismissed: z.enum(["true", "false"], { error: 'must be "true" or "false"' }).optional(),
    ...pageQuery(DRIFT_EVENT_LIST),
  })
  .strict();
