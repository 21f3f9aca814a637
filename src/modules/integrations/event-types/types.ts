// What a webhook event type is: a source that turns one audit event into messages of its types.
// Sources are a list (./index.ts): a new kind of event (access requests, issue 21) is one file
// here plus one line there.
import type { AuditChange } from "../../../storage";
import type { AuditEventView } from "../../audit";

export interface EventTypeInfo {
  /** An exact type, or a family written with "*" (`role_binding.*`). */
  name: string;
  description: string;
}

/** One message to deliver: its type and its `data` (Standard Webhooks payload). */
export interface EventMessage {
  type: string;
  data: Record<string, unknown>;
}

export interface EventSource {
  types: readonly EventTypeInfo[];
  messages(event: AuditEventView, changes: readonly AuditChange[]): EventMessage[];
}
