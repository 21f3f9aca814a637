// Drift events: policy changes made after launch (the spec's "Events"), newest first, with what
// each one means; dismissing acknowledges it (the row is kept).
import { useState } from "react";
import { useGraphMutation } from "../../app/data";
import { canWrite, useSignedIn } from "../../app/session";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { Badge, DataTable, When } from "../../components/DataTable";
import { DismissDriftDocument } from "../../graphql/generated/graphql";
import { APPLICATION_KEY } from "./ApplicationPage";
import type { App } from "./types";

type Event = App["driftEvents"][number];

function describe(e: Event): string {
  const p = e.payload;
  switch (e.eventType) {
    case "scope_deleted":
      return `Scope ${p.priorScopeId} (${p.priorScopeName}) deleted; ${p.toolsAffected} tool(s) lost it. Issued tokens keep it until they expire.`;
    case "tool_unmapped":
      return `${p.toolName} lost scope ${p.priorScopeId}; without a scope it answers 403 to everyone at the next policy refresh.`;
    case "default_role_disabled":
      return `The access policy was turned off (default role was ${p.priorDefaultRole}); new users get no role.`;
    case "default_role_changed":
      return `Default role changed from ${p.priorDefaultRole} to ${p.newDefaultRole}; only users signing in from now on get the new one.`;
    case "secret_rotated":
      return `Introspection secret rotated at ${p.rotatedAt}; runtimes with the old secret fail until restarted with the new one.`;
    case "tool_definition_changed":
      return `${p.toolName} reported a new definition; the runtime denies it until an administrator approves it.`;
  }
}

export function DriftPanel({ rs }: { rs: App }) {
  const s = useSignedIn();
  const dismiss = useGraphMutation(DismissDriftDocument, [[APPLICATION_KEY, rs.id], ["applications"]]);
  const [event, setEvent] = useState<Event | null>(null);
  return (
    <section id="drift" aria-labelledby="drift-title" className="panel">
      <h2 id="drift-title">Drift events</h2>
      <DataTable<Event>
        caption="Drift events, newest first"
        rows={rs.driftEvents}
        rowKey={(e) => e.id}
        empty={rs.state === "ready" ? "No policy change since launch." : "Drift is recorded once the server is launched."}
        columns={[
          { header: "When", cell: (e) => <When at={e.occurredAt} /> },
          { header: "Event", rowHeader: true, cell: (e) => <code>{e.eventType}</code> },
          { header: "What it means", cell: describe },
          { header: "Status", cell: (e) => (e.dismissedAt ? <Badge>Dismissed</Badge> : <Badge tone="warn">Open</Badge>) },
        ]}
        actions={(e) =>
          !e.dismissedAt && canWrite(s) ? (
            <button type="button" className="button-small" onClick={() => setEvent(e)}>
              Dismiss {e.eventType}
            </button>
          ) : null
        }
      />
      {event && (
        <ConfirmDialog
          title="Dismiss this drift event?"
          confirmLabel="Dismiss"
          pending={dismiss.isPending}
          error={dismiss.error}
          onClose={() => setEvent(null)}
          onConfirm={() => dismiss.mutate({ id: rs.id, eventId: event.id }, { onSuccess: () => setEvent(null) })}
        >
          <p>{describe(event)}</p>
          <p>Dismissing records that you saw it: it leaves the open list and the runtime's policy answer. The event itself is kept.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
