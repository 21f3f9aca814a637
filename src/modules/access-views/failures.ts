// "Why did this fail": the latest OAuth and sign-in failures of one client or one user of the
// workspace, read from the audit trail (docs/decisions/0038-audit-trail.md), which already records
// them: `signin.failed` per attempt (target: the user), and the token endpoint's refusals counted
// per client, grant and reason (`token.refused`, `client.authentication_failed`: SecurityCounters,
// written at each flush with count, first and last time and a few addresses). No new table: the
// trail is bounded by its retention (TOOLGATE_AUDIT_RETENTION_DAYS) and a page by `limit` (<= 50).
// Each failure is named in the access simulation's vocabulary of checks where the recorded reason
// says which check it was (`check`; null when the reason does not say).
import { type Actor, assertCanRead } from "../../shared/actor";
import { badRequest } from "../../shared/errors";
import type { Page, Position } from "../../shared/pagination";
import type { ListAuditEventsQuery } from "../audit";

/** The audit module's list (AuditEventService.list), as this module reads it. */
export interface AuditEventsPort {
  list(actor: Actor, workspaceId: string, query: ListAuditEventsQuery): Promise<Page<FailureEvent>>;
}

interface FailureEvent {
  id: string;
  occurred_at: string;
  action: string;
  actor: { type: string; id: string | null };
  target: { type: string; id: string | null } | null;
  address: string | null;
  summary: Record<string, unknown>;
}

export const MAX_FAILURES = 50;

/** Recorded reason text -> the simulation's check that failed (src/modules/access-views/simulation.ts). */
const CHECK_OF_REASON: [RegExp, string][] = [
  [/may no longer hold anything|not an active member|suspended/i, "user_active"],
  [/connection .*revoked|not registered for that resource server|connection/i, "client_connection_approved"],
  [/not among the client's allowed scopes/i, "client_allowed_scope"],
  [/exceeds the original grant/i, "role_grants_scope"],
  [/resource server is gone|no live resource server/i, "application_launched"],
  [/unknown client_id or wrong secret|no client credentials|client_assertion|Basic/i, "client_authenticated"],
  [/wrong password|wrong code|no such account/i, "credentials_valid"],
];

const STAGE_OF_ACTION: Record<string, string> = {
  "signin.failed": "sign_in",
  "signin.throttled": "sign_in",
  "token.refused": "token",
  "client.authentication_failed": "client_authentication",
  "resource_server.authentication_failed": "introspection",
  "registration.refused": "registration",
  "cimd.fetch_refused": "client_metadata",
};

export interface FailureItem {
  event_id: string;
  occurred_at: string;
  stage: string;
  action: string;
  /** The OAuth error code sent to the client (null for sign-in failures, which answer a page). */
  error: string | null;
  /** The server-side reason (never sent to the client). */
  reason: string | null;
  check: string | null;
  /** For counted refusals: how many in the flush interval, and when the last was. */
  count: number;
  last_at: string;
  grant_type: string | null;
  addresses: string[];
}

export class FailureExplanations {
  constructor(private readonly audit: AuditEventsPort) {}

  /** The latest failures of one client (its OAuth client_id) or one user, newest first. */
  async recent(actor: Actor, workspaceId: string, q: { client_id?: string; user_id?: string; limit: number; cursor?: Position }): Promise<Page<FailureItem>> {
    assertCanRead(actor);
    if ((q.client_id === undefined) === (q.user_id === undefined)) throw badRequest("query: give exactly one of client_id, user_id");
    const target = q.client_id !== undefined ? { target_type: "client", target_id: q.client_id } : { target_type: "user", target_id: q.user_id! };
    const page = await this.audit.list(actor, workspaceId, { ...target, outcome: "failure", limit: Math.min(q.limit, MAX_FAILURES), cursor: q.cursor });
    const items = page.items.map(toFailure);
    return { items, count: items.length, next_cursor: page.next_cursor };
  }
}

function toFailure(e: FailureEvent): FailureItem {
  const detail = (e.summary.detail ?? e.summary) as Record<string, unknown>;
  const text = typeof detail.reason === "string" ? detail.reason : null;
  // Counted refusals record "<oauth error>: <internal reason>".
  const m = text ? /^([a-z_]+): (.*)$/s.exec(text) : null;
  const error = m ? m[1]! : null;
  const reason = m ? m[2]! : text;
  return {
    event_id: e.id,
    occurred_at: e.occurred_at,
    stage: STAGE_OF_ACTION[e.action] ?? e.action.split(".")[0]!,
    action: e.action,
    error,
    reason,
    check: reason ? (CHECK_OF_REASON.find(([re]) => re.test(reason))?.[1] ?? null) : null,
    count: typeof detail.count === "number" ? detail.count : 1,
    last_at: typeof detail.last_at === "string" ? detail.last_at : e.occurred_at,
    grant_type: typeof detail.grant_type === "string" ? detail.grant_type : null,
    addresses: Array.isArray(detail.addresses) ? (detail.addresses as string[]) : e.address ? [e.address] : [],
  };
}
