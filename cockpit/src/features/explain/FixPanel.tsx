// The safest fix: its words, then a change preview (POST .../access-change-previews: who would gain
// and lose which tools, nothing written), then Apply after a confirmation naming what it affects.
// Fixes the preview has no vocabulary for are described and linked to the screen that makes them.
import { useState } from "react";
import { Link } from "react-router";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { canWrite, useSignedIn } from "../../app/session";
import { useOnSignedOut, useRestMutation } from "../../app/data";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { ErrorAlert } from "../../components/ErrorAlert";
import { applyChange, impactSentence } from "./apply";
import type { ChangePreview, Fix, FixChange } from "./types";

const capitalized = (t: string) => t.charAt(0).toUpperCase() + t.slice(1);

/** Where a fix without a preview is made. */
function fixLink(fix: Fix, app: string): { to: string; label: string } {
  if (["add_membership", "reactivate_membership", "reactivate_end_user", "extend_binding", "create_role_and_bind"].includes(fix.kind)) return { to: "/people", label: "People and access" };
  if (["approve_client", "approve_connection", "allow_client_scope"].includes(fix.kind)) return { to: "/clients", label: "Clients and connections" };
  return { to: `/applications/${app}`, label: "the application" };
}

export function FixPanel(props: { fix: Fix; text: string; app: { id: string; name: string }; email: (userId: string) => string }) {
  const s = useSignedIn();
  const queries = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const change = props.fix.impact?.change ?? null;
  const onSignedOut = useOnSignedOut();
  const preview = useRestMutation<ChangePreview, FixChange>("POST", () => `/svc/v1/applications/${props.app.id}/access-change-previews`, [], (c) => ({ change: c }));
  const apply = useMutation<void, Error, FixChange>({
    mutationFn: (c) => applyChange(s.token, s.workspaceId, props.app.id, c),
    onError: onSignedOut,
    onSuccess: async () => {
      setConfirming(false);
      preview.reset();
      // Everything this workspace's screens show may have changed; the simulation (under the same key) runs again.
      await queries.invalidateQueries({ queryKey: [s.workspaceId] });
    },
  });
  const p = preview.data;
  const what =
    change?.kind === "binding_add"
      ? `Bind ${props.email(change.subject_id)} to the role ${props.fix.role_name ?? change.role_id} on ${props.app.name} only.`
      : change?.kind === "tool_mapping"
        ? `Map ${change.tool_name} to ${change.scope_ids.join(", ")} on ${props.app.name}.`
        : "";
  const link = fixLink(props.fix, props.app.id);
  return (
    <section aria-labelledby="fix-title" className="panel">
      <h2 id="fix-title">Safest fix</h2>
      <p>{props.text}</p>
      {!change ? (
        <p className="muted">
          This fix has no change preview; make it in <Link to={link.to}>{link.label}</Link>, then run the simulation again.
        </p>
      ) : (
        <>
          {!p && (
            <button type="button" className="button-primary" disabled={preview.isPending} onClick={() => preview.mutate(change)}>
              Preview this fix
            </button>
          )}
          <ErrorAlert error={preview.error} />
          {p && (
            <div className="preview" aria-labelledby="preview-title">
              <h3 id="preview-title">Change preview</h3>
              <p role="status">
                <strong>{capitalized(impactSentence(p.summary))}.</strong> Nothing is written until you apply it.
              </p>
              <p>{what}</p>
              <ul aria-label="Who gains and loses what">
                {p.users.map((u) => (
                  <li key={u.user_id}>
                    {props.email(u.user_id)}
                    {u.gains.tools.length > 0 && <> gains {u.gains.tools.join(", ")}</>}
                    {u.gains.scopes.length > 0 && <> (scopes {u.gains.scopes.join(", ")})</>}
                    {u.losses.tools.length > 0 && <>, loses {u.losses.tools.join(", ")}</>}
                  </li>
                ))}
                {p.truncated && <li>… and more (the list stops at 500 users)</li>}
              </ul>
              {p.warnings.map((w) => (
                <p key={w.code} className="alert alert-info">
                  {w.message}
                </p>
              ))}
              {canWrite(s) ? (
                <div className="actions">
                  <button type="button" onClick={() => preview.reset()}>
                    Cancel
                  </button>
                  <button type="button" className="button-primary" onClick={() => setConfirming(true)}>
                    Apply this fix
                  </button>
                </div>
              ) : (
                <p className="muted">Only an owner or an admin may apply it.</p>
              )}
            </div>
          )}
        </>
      )}
      {confirming && change && p && (
        <ConfirmDialog title="Apply this fix?" confirmLabel="Apply the fix" pending={apply.isPending} error={apply.error} onConfirm={() => apply.mutate(change)} onClose={() => setConfirming(false)}>
          <p>{what}</p>
          <p>
            It affects {p.summary.users_gaining + p.summary.users_losing === 1 ? "1 user" : `${p.summary.users_gaining + p.summary.users_losing} users`}: {impactSentence(p.summary)}
            {p.summary.tools_gained.length > 0 && <> ({p.summary.tools_gained.join(", ")})</>}.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
