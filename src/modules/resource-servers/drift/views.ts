// Wire view of a drift event: the spec's field names (snake_case), timestamps as ISO 8601.
import type { DriftEvent } from "../../../generated/sqlite/client";

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

/** Newest first; events written together keep a stable order. */
export const DRIFT_ORDER = [{ occurredAt: "desc" as const }, { id: "asc" as const }];
