// The audit trail (docs/audit-and-integrations.md): the workspace's events, newest first, one page
// at a time, filtered by action (or a family such as role_binding.*), actor, outcome and a time
// range. The filters live in the URL (a filtered view is a link); Newer / Older walk the pages by
// cursor. Owners, admins and read-only auditors read it; nobody writes it here.
import { useState } from "react";
import { useSearchParams } from "react-router";
import { fieldErrorOf, formErrorOf } from "../../api/errors";
import { useGraph, useRest } from "../../app/data";
import { Badge, DataTable, When } from "../../components/DataTable";
import { ErrorAlert, Loading } from "../../components/ErrorAlert";
import { usePageTitle } from "../../components/Page";
import { SelectField, TextField } from "../../components/TextField";
import { AuditEventsDocument, type AuditEventFilter, type AuditEventsQuery } from "../../graphql/generated/graphql";

export type AuditEvent = AuditEventsQuery["auditEvents"][number];
export const AUDIT_KEY = "audit";
/** Rows per page; one more is read to know whether an older page exists. */
export const AUDIT_PAGE_SIZE = 25;

const ACTOR_TYPES = ["user", "client", "resource_server", "cli", "system", "anonymous"] as const;
const FILTER_NAMES = ["action", "actor_type", "actor_id", "outcome", "since", "until"] as const;
type FilterName = (typeof FILTER_NAMES)[number];
type Filters = Record<FilterName, string>;
const FIELD_OF: Record<string, FilterName> = { "filter.action": "action", "filter.actorId": "actor_id", "filter.since": "since", "filter.until": "until" };

/** A datetime-local value (the reader's local time) as an ISO instant, or undefined when empty or unreadable. */
const instant = (local: string) => {
  if (!local) return undefined;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
};

export function toFilterInput(f: Filters): AuditEventFilter {
  return {
    ...(f.action ? { action: f.action } : {}),
    ...(f.actor_type ? { actorType: f.actor_type } : {}),
    ...(f.actor_id ? { actorId: f.actor_id } : {}),
    ...(f.outcome ? { outcome: f.outcome } : {}),
    ...(instant(f.since) ? { since: instant(f.since) } : {}),
    ...(instant(f.until) ? { until: instant(f.until) } : {}),
  };
}

export function AuditPage() {
  usePageTitle("Audit trail");
  const [params, setParams] = useSearchParams();
  const applied = Object.fromEntries(FILTER_NAMES.map((k) => [k, params.get(k) ?? ""])) as Filters;
  const appliedKey = FILTER_NAMES.map((k) => applied[k]).join("\u0000");
  const [draft, setDraft] = useState<{ key: string; values: Filters }>({ key: appliedKey, values: applied });
  const values = draft.key === appliedKey ? draft.values : applied;
  // The cursors of the pages before this one (newest first), for these filters only.
  const [trail, setTrail] = useState<{ key: string; afters: string[] }>({ key: appliedKey, afters: [] });
  const afters = trail.key === appliedKey ? trail.afters : [];
  const after = afters.at(-1) ?? null;
  const q = useGraph([AUDIT_KEY, appliedKey], AuditEventsDocument, { filter: toFilterInput(applied), first: AUDIT_PAGE_SIZE + 1, after });
  const types = useRest<{ items: { name: string; description: string }[] }>([AUDIT_KEY, "event-types"], "/svc/exsvc/event-types");
  const rows = q.data?.auditEvents.slice(0, AUDIT_PAGE_SIZE) ?? [];
  const older = (q.data?.auditEvents.length ?? 0) > AUDIT_PAGE_SIZE;
  const set = (k: FilterName, v: string) => setDraft({ key: appliedKey, values: { ...values, [k]: v } });
  const apply = (f: Filters) => {
    const next = new URLSearchParams();
    for (const k of FILTER_NAMES) if (f[k].trim()) next.set(k, f[k].trim());
    setParams(next);
  };
  const fieldError = (name: FilterName) => {
    const field = Object.keys(FIELD_OF).find((f) => FIELD_OF[f] === name);
    return field ? fieldErrorOf(q.error, field) : undefined;
  };
  const first = afters.length * AUDIT_PAGE_SIZE + 1;
  return (
    <>
      <h1>Audit trail</h1>
      <p className="muted">Every change and sign-in in this workspace, newest first. Each event is chained to the one before it (<code>toolgate audit verify</code> checks the chain).</p>
      <form
        className="filters filters-wrap"
        aria-label="Filters"
        onSubmit={(e) => {
          e.preventDefault();
          apply(values);
        }}
      >
        <TextField
          label="Action"
          name="action"
          value={values.action}
          onChange={(e) => set("action", e.target.value)}
          list="audit-actions"
          placeholder="role_binding.*"
          hint="An action, or a family ending in .*"
          error={fieldError("action")}
          autoComplete="off"
        />
        <datalist id="audit-actions">
          {(types.data?.items ?? []).map((t) => (
            <option key={t.name} value={t.name}>
              {t.description}
            </option>
          ))}
        </datalist>
        <SelectField label="Actor type" name="actor_type" value={values.actor_type} onChange={(e) => set("actor_type", e.target.value)}>
          <option value="">Any actor</option>
          {ACTOR_TYPES.map((t) => (
            <option key={t} value={t}>
              {t.replace("_", " ")}
            </option>
          ))}
        </SelectField>
        <TextField label="Actor id" name="actor_id" value={values.actor_id} onChange={(e) => set("actor_id", e.target.value)} autoComplete="off" error={fieldError("actor_id")} />
        <SelectField label="Outcome" name="outcome" value={values.outcome} onChange={(e) => set("outcome", e.target.value)}>
          <option value="">Any outcome</option>
          <option value="success">Success</option>
          <option value="failure">Failure</option>
        </SelectField>
        <TextField label="From" name="since" type="datetime-local" value={values.since} onChange={(e) => set("since", e.target.value)} hint="Your local time" error={fieldError("since")} />
        <TextField label="Until" name="until" type="datetime-local" value={values.until} onChange={(e) => set("until", e.target.value)} hint="Your local time" error={fieldError("until")} />
        <div className="actions">
          <button type="submit" className="button-primary">
            Apply filters
          </button>
          <button type="button" onClick={() => apply(Object.fromEntries(FILTER_NAMES.map((k) => [k, ""])) as Filters)} disabled={appliedKey === FILTER_NAMES.map(() => "").join("\u0000")}>
            Clear filters
          </button>
        </div>
      </form>
      {q.isPending ? (
        <Loading what="the audit trail" />
      ) : q.error ? (
        <ErrorAlert error={formErrorOf(q.error, Object.keys(FIELD_OF)) ?? new Error("A filter above is not valid: see the message under it.")} />
      ) : (
        <>
          <DataTable<AuditEvent>
            caption={rows.length ? `Audit events ${first}–${first + rows.length - 1}` : "Audit events"}
            rows={rows}
            rowKey={(e) => e.id}
            empty={appliedKey.replaceAll("\u0000", "") ? "No event matches these filters." : "No audit event yet."}
            columns={[
              { header: "When", cell: (e) => <When at={e.occurredAt} /> },
              { header: "Action", rowHeader: true, cell: (e) => <code className="nowrap">{e.action}</code> },
              { header: "Actor", cell: (e) => <Party type={e.actorType} id={e.actorId} /> },
              { header: "Target", cell: (e) => (e.targetType ? <Party type={e.targetType} id={e.targetId} /> : <span className="muted">none</span>) },
              { header: "Outcome", cell: (e) => <Badge tone={e.outcome === "success" ? "ok" : "danger"}>{e.outcome}</Badge> },
              { header: "Details", cell: (e) => <Details event={e} /> },
            ]}
          />
          <nav aria-label="Pages of the audit trail" className="pager">
            <button type="button" onClick={() => setTrail({ key: appliedKey, afters: afters.slice(0, -1) })} disabled={afters.length === 0}>
              Newer events
            </button>
            <span className="muted">Page {afters.length + 1}</span>
            <button type="button" onClick={() => setTrail({ key: appliedKey, afters: [...afters, rows.at(-1)!.cursor] })} disabled={!older}>
              Older events
            </button>
          </nav>
        </>
      )}
    </>
  );
}

/** A type and the id's first characters (the whole id is in the row's details, and in the title). */
function Party({ type, id }: { type: string; id: string | null | undefined }) {
  return (
    <>
      {type.replace("_", " ")}
      {id && (
        <>
          {" "}
          <code className="small" title={id}>
            {id.length > 12 ? `${id.slice(0, 8)}…` : id}
          </code>
        </>
      )}
    </>
  );
}

function Details({ event }: { event: AuditEvent }) {
  let summary: unknown = event.summary;
  try {
    summary = JSON.parse(event.summary);
  } catch {
    // Shown as sent.
  }
  return (
    <details>
      <summary>
        Event {event.seq}
        <span className="visually-hidden"> details</span>
      </summary>
      <dl className="facts">
        <dt>Actor</dt>
        <dd>
          {event.actorType.replace("_", " ")} {event.actorId && <code className="small">{event.actorId}</code>}
        </dd>
        <dt>Target</dt>
        <dd>{event.targetType ? <>{event.targetType.replace("_", " ")} {event.targetId && <code className="small">{event.targetId}</code>}</> : "none"}</dd>
        <dt>From</dt>
        <dd>{event.address ?? "unknown"}</dd>
        <dt>Request</dt>
        <dd>{event.requestId ? <code className="small">{event.requestId}</code> : "none"}</dd>
      </dl>
      <pre className="code small">{JSON.stringify(summary, null, 2)}</pre>
    </details>
  );
}
