// The webhook event types: a list of sources (docs/audit-and-integrations.md "Event types"). A new
// kind of event is one file in this folder plus one line below. Nothing else changes: the fan-out
// asks every source for the messages of each audit event, and GET /svc/exsvc/event-types lists
// their types.
import type { AuditChange } from "../../../storage";
import type { AuditEventView } from "../../audit";
import { auditEvents } from "./audit-events";
import { connectionChanges } from "./connection-changes";
import { driftEvents } from "./drift-events";
import type { EventMessage, EventSource, EventTypeInfo } from "./types";

export const EVENT_SOURCES: readonly EventSource[] = [auditEvents, driftEvents, connectionChanges];

/** Each type once: a source may name a type that is also an audit action (`connection.revoked`); the first source's entry stands. */
export const EVENT_TYPES: readonly EventTypeInfo[] = uniqueByName(EVENT_SOURCES.flatMap((s) => s.types));

function uniqueByName(types: readonly EventTypeInfo[]): EventTypeInfo[] {
  const seen = new Set<string>();
  return types.filter((t) => !seen.has(t.name) && !!seen.add(t.name));
}

/** Every message of one audit event, one per type (a source's type that repeats the action is sent once). */
export function messagesOf(event: AuditEventView): EventMessage[] {
  const changes = ((event.summary as { changes?: AuditChange[] }).changes ?? []) as AuditChange[];
  const seen = new Set<string>();
  const out: EventMessage[] = [];
  for (const source of EVENT_SOURCES) {
    for (const m of source.messages(event, changes)) {
      if (seen.has(m.type)) continue;
      seen.add(m.type);
      out.push(m);
    }
  }
  return out;
}

/** A subscription's patterns: exact types, `prefix.*`, or `*`. */
export function matchesAny(patterns: readonly string[], type: string): boolean {
  return patterns.some((p) => p === "*" || p === type || (p.endsWith(".*") && type.startsWith(p.slice(0, -1))));
}

export type { EventMessage, EventSource, EventTypeInfo } from "./types";
