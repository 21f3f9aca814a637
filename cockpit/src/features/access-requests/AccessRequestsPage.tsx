// Access requests (docs/enterprise-agents.md, decision 0049): an agent's first connection through
// an ID-JAG (client, person, application) waits here unless auto-approved. Approve (optionally
// narrowing the scopes or binding a role to the person on that application), deny with a reason,
// and revoke an approved connection, saying what stops working. Filter by status (?status=).
import { useState } from "react";
import { useSearchParams } from "react-router";
import { fieldErrorOf, formErrorOf } from "../../api/errors";
import { useGraph, useGraphMutation } from "../../app/data";
import { canWrite, useSignedIn } from "../../app/session";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { Badge, DataTable, When } from "../../components/DataTable";
import { Dialog } from "../../components/Dialog";
import { ErrorAlert, Loading, Notice } from "../../components/ErrorAlert";
import { usePageTitle } from "../../components/Page";
import { CheckboxField, SelectField, TextField } from "../../components/TextField";
import {
  AccessRequestsDocument,
  ApproveAccessRequestDocument,
  DenyAccessRequestDocument,
  RevokeAgentConnectionDocument,
  type AccessRequestStatus,
  type AccessRequestsQuery,
} from "../../graphql/generated/graphql";

type Request = AccessRequestsQuery["accessRequests"][number];
type Role = AccessRequestsQuery["roles"][number];
export const ACCESS_REQUESTS_KEY = "access-requests";
const STATUSES: { id: AccessRequestStatus | ""; label: string }[] = [
  { id: "pending", label: "Pending" },
  { id: "approved", label: "Approved (connections)" },
  { id: "denied", label: "Denied" },
  { id: "revoked", label: "Revoked" },
  { id: "", label: "All" },
];
const TONE = { pending: "warn", approved: "ok", denied: "danger", revoked: "neutral" } as const;
/** One page: the newest requests of the status. */
const PAGE = 200;

const agentOf = (r: Request) => r.clientName ?? r.clientId;
const personOf = (r: Request) => r.userEmail ?? r.userId;
const serverOf = (r: Request) => r.resourceServerName ?? r.resourceServerId;

type Action = { kind: "approve" | "deny" | "revoke"; request: Request };

export function AccessRequestsPage() {
  usePageTitle("Access requests");
  const s = useSignedIn();
  const writable = canWrite(s);
  const [params, setParams] = useSearchParams();
  const status = (params.has("status") ? params.get("status") : "pending") as AccessRequestStatus | "";
  const q = useGraph([ACCESS_REQUESTS_KEY], AccessRequestsDocument, { first: PAGE, status: status || null });
  const revoke = useGraphMutation(RevokeAgentConnectionDocument, [[ACCESS_REQUESTS_KEY]]);
  const [action, setAction] = useState<Action | null>(null);
  const [notice, setNotice] = useState("");
  const done = (message: string) => () => (setAction(null), setNotice(message));
  const roles = q.data?.roles ?? [];
  return (
    <>
      <h1>Access requests</h1>
      <p className="muted">
        An agent acting for a person through their organization&apos;s identity provider (an ID-JAG) connects to an application for the first time: unless the trust auto-approves the person&apos;s
        group, the connection waits here. Approved requests are the agents&apos; connections.
      </p>
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <SelectField label="Status" name="status" value={status} onChange={(e) => setParams({ status: e.target.value })}>
          {STATUSES.map((o) => (
            <option key={o.id} value={o.id}>
              {o.label}
            </option>
          ))}
        </SelectField>
      </form>
      <Notice>{notice}</Notice>
      {q.isPending ? (
        <Loading what="access requests" />
      ) : q.error ? (
        <ErrorAlert error={q.error} />
      ) : (
        <DataTable<Request>
          caption={`Access requests: ${STATUSES.find((o) => o.id === status)?.label ?? status}`}
          rows={q.data.accessRequests}
          rowKey={(r) => r.id}
          empty={status === "pending" ? "No request waits." : "None."}
          columns={[
            { header: "Agent", rowHeader: true, cell: (r) => <>{agentOf(r)}{r.clientName && <span className="hint"><code>{r.clientId}</code></span>}</> },
            { header: "For", cell: (r) => personOf(r) },
            { header: "Application", cell: (r) => serverOf(r) },
            {
              header: "Scopes",
              cell: (r) => (r.scopesGranted ?? r.scopesRequested).map((sc) => <code key={sc} className="small">{sc} </code>),
            },
            { header: "Status", cell: (r) => <><Badge tone={TONE[r.status]}>{r.status}</Badge>{r.reason && <span className="hint">{r.reason}</span>}</> },
            { header: "Requested", cell: (r) => <When at={r.createdAt} /> },
            { header: "Last connected", cell: (r) => <When at={r.lastConnectedAt} /> },
          ]}
          actions={(r) =>
            writable && (
              <>
                {r.status !== "approved" && (
                  <button type="button" className="button-small" onClick={() => setAction({ kind: "approve", request: r })}>
                    {r.status === "revoked" ? "Approve again" : "Approve"}<span className="visually-hidden"> {agentOf(r)} for {personOf(r)}</span>
                  </button>
                )}
                {r.status === "pending" && (
                  <button type="button" className="button-small button-danger" onClick={() => setAction({ kind: "deny", request: r })}>
                    Deny<span className="visually-hidden"> {agentOf(r)} for {personOf(r)}</span>
                  </button>
                )}
                {r.status === "approved" && (
                  <button type="button" className="button-small button-danger" onClick={() => setAction({ kind: "revoke", request: r })}>
                    Revoke<span className="visually-hidden"> {agentOf(r)} for {personOf(r)}</span>
                  </button>
                )}
              </>
            )
          }
        />
      )}
      {action?.kind === "approve" && <ApproveDialog request={action.request} roles={roles} onClose={() => setAction(null)} onDone={done(`${agentOf(action.request)} may now act for ${personOf(action.request)} on ${serverOf(action.request)}.`)} />}
      {action?.kind === "deny" && <DenyDialog request={action.request} onClose={() => setAction(null)} onDone={done(`Denied ${agentOf(action.request)} for ${personOf(action.request)}.`)} />}
      {action?.kind === "revoke" && (
        <ConfirmDialog
          title={`Revoke ${agentOf(action.request)} for ${personOf(action.request)}?`}
          confirmLabel="Revoke connection"
          pending={revoke.isPending}
          error={revoke.error}
          onClose={() => setAction(null)}
          onConfirm={() => revoke.mutate({ id: action.request.id }, { onSuccess: done(`Revoked ${agentOf(action.request)} for ${personOf(action.request)}.`) })}
        >
          <p>
            {agentOf(action.request)} stops acting for {personOf(action.request)} on {serverOf(action.request)} at once: every token it holds for this connection introspects inactive on every
            instance, and its next ID-JAG exchange is refused until someone approves it again. Other agents and {personOf(action.request)}&apos;s own access are not affected.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}

function ApproveDialog({ request, roles, onClose, onDone }: { request: Request; roles: Role[]; onClose: () => void; onDone: () => void }) {
  const approve = useGraphMutation(ApproveAccessRequestDocument, [[ACCESS_REQUESTS_KEY]]);
  const [scopes, setScopes] = useState<string[]>(request.scopesGranted ?? request.scopesRequested);
  const [roleId, setRoleId] = useState("");
  const narrowed = scopes.length < request.scopesRequested.length;
  return (
    <Dialog title={`Approve ${agentOf(request)} for ${personOf(request)}?`} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          approve.mutate({ id: request.id, scopes: narrowed ? scopes : null, roleId: roleId || null }, { onSuccess: onDone });
        }}
      >
        <p>
          {agentOf(request)} may then get tokens for {serverOf(request)} on behalf of {personOf(request)}, never beyond what the ID-JAG asks and what {personOf(request)} holds.
        </p>
        {request.scopesRequested.length > 0 && (
          <fieldset>
            <legend>Scopes it may use (untick to narrow)</legend>
            {request.scopesRequested.map((sc) => (
              <CheckboxField
                key={sc}
                label={sc}
                name={`scope-${sc}`}
                checked={scopes.includes(sc)}
                onChange={(e) => setScopes(e.target.checked ? [...scopes, sc] : scopes.filter((x) => x !== sc))}
              />
            ))}
          </fieldset>
        )}
        <SelectField
          label="Also bind a role"
          name="role_id"
          value={roleId}
          onChange={(e) => setRoleId(e.target.value)}
          hint={`Gives ${personOf(request)} the role on ${serverOf(request)} (a role binding, listed under People and access).`}
          error={fieldErrorOf(approve.error, "role_id")}
        >
          <option value="">No role</option>
          {roles.map((r) => (
            <option key={r.id} value={r.id}>
              {r.name}
            </option>
          ))}
        </SelectField>
        <ErrorAlert error={formErrorOf(approve.error, ["role_id"])} />
        <div className="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button-primary" disabled={approve.isPending || (request.scopesRequested.length > 0 && scopes.length === 0)}>
            Approve
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function DenyDialog({ request, onClose, onDone }: { request: Request; onClose: () => void; onDone: () => void }) {
  const deny = useGraphMutation(DenyAccessRequestDocument, [[ACCESS_REQUESTS_KEY]]);
  const [reason, setReason] = useState("");
  return (
    <Dialog title={`Deny ${agentOf(request)} for ${personOf(request)}?`} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          deny.mutate({ id: request.id, reason: reason.trim() }, { onSuccess: onDone });
        }}
      >
        <p>Its ID-JAG exchanges for {serverOf(request)} on behalf of {personOf(request)} are refused; the reason is kept with the request and in the audit trail. It can be approved later.</p>
        <TextField label="Reason" name="reason" value={reason} onChange={(e) => setReason(e.target.value)} required error={fieldErrorOf(deny.error, "reason", "reason")} />
        <ErrorAlert error={formErrorOf(deny.error, ["reason"], "reason")} />
        <div className="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button-danger" disabled={deny.isPending}>
            Deny
          </button>
        </div>
      </form>
    </Dialog>
  );
}
