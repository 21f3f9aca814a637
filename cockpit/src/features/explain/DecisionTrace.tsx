// The decision trace, one step per check in the order the server evaluated them
// (docs/access-explained.md "The checks"): the check that blocked is highlighted with the
// condition that failed; the checks after it were not evaluated.
import { Badge } from "../../components/DataTable";
import type { Simulation, TraceStep } from "./types";

const CHECK_LABEL: Record<string, string> = {
  membership_active: "The user is an active member of the workspace",
  end_user_active: "The user is not suspended",
  user_active: "The user may hold access at all",
  application_launched: "The application is launched (its policy is complete)",
  tool_mapped: "The tool is mapped to a scope (or public)",
  tool_definition_current: "The tool's definition is the approved one",
  client_connection_approved: "The client and its connection are approved",
  binding_not_expired: "A binding granting a required scope has not expired",
  role_grants_scope: "A role bound to the user grants a required scope",
  client_allowed_scope: "The client is allowed a required scope",
};

const STATE: Record<TraceStep["state"], { label: string; tone: "ok" | "danger" | "neutral" | "info" }> = {
  ok: { label: "OK", tone: "ok" },
  blocked: { label: "Blocked", tone: "danger" },
  skipped: { label: "Skipped", tone: "info" },
  not_evaluated: { label: "Not evaluated", tone: "neutral" },
};

/** A binding or role in a step's detail, in words: "Note reader (group:Support, notes:read, expired)". */
function itemText(v: unknown): string {
  if (typeof v !== "object" || v === null) return String(v);
  const o = v as Record<string, unknown>;
  if (typeof o.role_name !== "string") return JSON.stringify(v);
  const extra = [o.via, Array.isArray(o.scopes) ? o.scopes.join(" ") : null, o.counts_now === false ? "does not count now" : null, o.expires_at ? `expires ${String(o.expires_at)}` : null].filter(Boolean);
  return extra.length ? `${o.role_name} (${extra.join(", ")})` : o.role_name;
}

const detailText = (d: Record<string, unknown> | undefined) =>
  d
    ? Object.entries(d)
        .map(([k, v]) => `${k.replace(/_/g, " ")}: ${Array.isArray(v) ? v.map(itemText).join("; ") || "none" : v === null ? "none" : itemText(v)}`)
        .join(" · ")
    : "";

export function DecisionTrace({ sim }: { sim: Simulation }) {
  return (
    <ol className="trace" aria-label="Decision trace">
      {sim.decision_trace.map((s, i) => {
        const state = STATE[s.state] ?? STATE.not_evaluated;
        const blocked = s.state === "blocked";
        return (
          <li key={s.check} className={`trace-step trace-${s.state}`} aria-current={blocked ? "step" : undefined}>
            <span className="trace-n" aria-hidden="true">
              {i + 1}
            </span>
            <div>
              <strong>{CHECK_LABEL[s.check] ?? s.check}</strong> <Badge tone={state.tone}>{state.label}</Badge>
              <div className="small muted">
                <code>{s.check}</code>
                {s.reason && <> · {s.reason.replace(/_/g, " ")}</>}
              </div>
              {blocked && sim.failed_condition && (
                <p className="trace-failed">
                  Failed condition: <code>{sim.failed_condition}</code>
                </p>
              )}
              {s.detail && <div className="small">{detailText(s.detail)}</div>}
            </div>
          </li>
        );
      })}
    </ol>
  );
}
