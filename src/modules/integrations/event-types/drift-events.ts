// A drift event (spec "Events": a policy change after a server is `ready`) recorded by a write is
// a message of type `drift_event.<event_type>`, e.g. `drift_event.scope_deleted`, besides the
// write's own event.
import type { EventSource } from "./types";

const KINDS = ["scope_deleted", "tool_unmapped", "default_role_disabled", "default_role_changed", "secret_rotated", "tool_definition_changed"];

export const driftEvents: EventSource = {
  types: KINDS.map((k) => ({ name: `drift_event.${k}`, description: `a drift event ${k} was recorded on a ready resource server` })),
  messages: (event, changes) =>
    changes
      .filter((c) => c.entity === "drift_event" && c.op === "created" && c.after)
      .map((c) => ({
        type: `drift_event.${String(c.after!.event_type)}`,
        data: { audit_event_id: event.id, workspace_id: event.workspace_id, occurred_at: event.occurred_at, drift_event: c.after! },
      })),
};
