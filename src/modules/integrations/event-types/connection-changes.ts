// A dcr/cimd client's connection to a server (DESIGN "Clients and connections") created, approved,
// made pending or revoked: `connection.created`, `connection.approved`, `connection.pending`,
// `connection.revoked`.
import type { EventSource } from "./types";

const STATUSES = ["approved", "pending", "revoked"];

export const connectionChanges: EventSource = {
  types: [
    { name: "connection.created", description: "a client connected to a resource server of the workspace for the first time" },
    ...STATUSES.map((s) => ({ name: `connection.${s}`, description: `a connection's status became ${s}` })),
  ],
  messages: (event, changes) =>
    changes
      .filter((c) => c.entity === "connection" && (c.op === "created" || typeof c.after?.status === "string"))
      .map((c) => ({
        type: c.op === "created" ? "connection.created" : `connection.${String(c.after!.status)}`,
        data: { audit_event_id: event.id, workspace_id: event.workspace_id, occurred_at: event.occurred_at, actor: event.actor, connection: { id: c.id, ...c.before, ...c.after } },
      })),
};
