// Access policy, then the activation preview (what the runtime will enforce: each tool and the
// scopes it needs, public tools, denied tools, who holds clients) and Activate. Activation cannot
// be undone (the spec: `ready` has no outgoing transition), so it is confirmed.
import { useState } from "react";
import { Link } from "react-router";
import { useGraphMutation } from "../../app/data";
import { canWrite, useSignedIn } from "../../app/session";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { ErrorAlert, Notice } from "../../components/ErrorAlert";
import { CheckboxField, SelectField } from "../../components/TextField";
import { ActivateApplicationDocument, SetAccessPolicyDocument, type FirstTimeGrant } from "../../graphql/generated/graphql";
import { APPLICATION_KEY } from "./ApplicationPage";
import type { App } from "./types";

export function ActivationPanel({ rs, roles }: { rs: App; roles: { id: string; name: string }[] }) {
  const s = useSignedIn();
  const writable = canWrite(s);
  const keys = [[APPLICATION_KEY, rs.id], ["applications"]];
  const policy = useGraphMutation(SetAccessPolicyDocument, keys);
  const activate = useGraphMutation(ActivateApplicationDocument, keys);
  const [confirming, setConfirming] = useState(false);
  const p = rs.accessPolicy;
  const [enabled, setEnabled] = useState(p?.enabled ?? true);
  const [roleId, setRoleId] = useState(p?.defaultRoleId ?? "");
  const [grant, setGrant] = useState<FirstTimeGrant>(p?.firstTimeGrant ?? "default_role");
  const [notice, setNotice] = useState("");
  const m = rs.scopeMatrix;
  const mapped = m.entries.filter((e) => e.scopeIds.length > 0);
  return (
    <section id="activation" aria-labelledby="activation-title" className="panel">
      <h2 id="activation-title">Access policy and activation</h2>
      <form
        aria-label="Access policy"
        onSubmit={(e) => {
          e.preventDefault();
          policy.mutate({ id: rs.id, input: { enabled, defaultRoleId: enabled && roleId ? roleId : null, firstTimeGrant: grant } }, { onSuccess: () => setNotice("Access policy saved.") });
        }}
      >
        <fieldset disabled={!writable}>
          <legend>First-time users</legend>
          <CheckboxField label="Give users a role at their first sign-in" name="enabled" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
          {enabled && (
            <>
              <SelectField label="Default role" name="defaultRoleId" value={roleId} onChange={(e) => setRoleId(e.target.value)} hint={roles.length === 0 ? <>No role yet: <Link to="/people?tab=roles">create one</Link>.</> : undefined}>
                <option value="">Choose a role…</option>
                {roles.map((r) => (
                  <option key={r.id} value={r.id}>
                    {r.name}
                  </option>
                ))}
              </SelectField>
              <SelectField label="At first sign-in" name="firstTimeGrant" value={grant} onChange={(e) => setGrant(e.target.value as FirstTimeGrant)}>
                <option value="default_role">Bind the default role to the user, on this server</option>
                <option value="none">Grant nothing (an administrator binds roles)</option>
              </SelectField>
            </>
          )}
          <button type="submit" disabled={policy.isPending}>
            Save access policy
          </button>
        </fieldset>
      </form>
      <ErrorAlert error={policy.error} title="The access policy was not saved" />
      <Notice>{notice}</Notice>

      <h3>Activation preview</h3>
      <p>{rs.state === "ready" ? "The runtime enforces this policy now:" : "Activating makes the runtime enforce this policy:"}</p>
      <ul className="preview">
        {mapped.map((e) => (
          <li key={e.toolName}>
            <code>{e.toolName}</code> needs {e.scopeIds.map((x) => <code key={x}>{x}</code>).reduce<React.ReactNode[]>((acc, c, i) => (i ? [...acc, " or ", c] : [c]), [])}
          </li>
        ))}
        {m.publicTools.length > 0 && (
          <li>
            Public (any caller with a token): {m.publicTools.join(", ")}
          </li>
        )}
        <li>
          Denied to everyone: {m.deniedTools.length > 0 ? m.deniedTools.join(", ") : "none"}
        </li>
        <li>
          Clients: {rs.clientCounts.approved} approved, {rs.clientCounts.pending} pending
        </li>
        <li>First-time users: {p?.enabled ? (p.firstTimeGrant === "default_role" ? `get ${p.defaultRoleName ?? "the default role"}` : "get nothing") : p ? "the policy is off: nobody gets a role automatically" : "no policy set yet"}</li>
      </ul>
      {rs.state !== "ready" && writable && (
        <button type="button" className="button-primary" disabled={!rs.setup.canActivate || activate.isPending} onClick={() => setConfirming(true)}>
          Activate
        </button>
      )}
      {rs.state !== "ready" && !rs.setup.canActivate && <p className="hint">Activation waits for every checklist item.</p>}
      <ErrorAlert error={activate.error} title="Activation refused" />
      {confirming && (
        <ConfirmDialog
          title={`Activate ${rs.name}?`}
          confirmLabel="Activate"
          pending={activate.isPending}
          error={activate.error}
          onClose={() => setConfirming(false)}
          onConfirm={() => activate.mutate({ id: rs.id }, { onSuccess: () => (setConfirming(false), setNotice(`${rs.name} is launched.`)) })}
        >
          <p>
            The runtime starts enforcing the preview above: {m.deniedTools.length} tool(s) denied, {mapped.length} behind scopes, {m.publicTools.length} public. Activation cannot be undone; later
            changes are recorded as drift events.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
