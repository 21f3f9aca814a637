// The dialogs of the client rows: rotate a secret (with a grace for the old one), revoke (saying
// what stops working first), approve a staged redirect-URI change (after its diff).
import { useState } from "react";
import { useGraphMutation, useRestMutation } from "../../app/data";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { Diff } from "../../components/Diff";
import { Dialog } from "../../components/Dialog";
import { ErrorAlert } from "../../components/ErrorAlert";
import { SecretOnce } from "../../components/SecretOnce";
import { SelectField } from "../../components/TextField";
import { When } from "../../components/DataTable";
import { ApproveClientRedirectsDocument, RevokeConnectionDocument, RotateClientSecretDocument } from "../../graphql/generated/graphql";
import { CLIENTS_KEY, type PreregClient, type Server } from "./ClientsPage";

const GRACES = [
  { seconds: 0, label: "None: the old secret stops working now" },
  { seconds: 3600, label: "1 hour" },
  { seconds: 86400, label: "24 hours" },
];

export function RotateSecretDialog({ rs, client, onClose }: { rs: Server; client: PreregClient; onClose: () => void }) {
  const rotate = useGraphMutation(RotateClientSecretDocument, [[CLIENTS_KEY]]);
  const [grace, setGrace] = useState(3600);
  const done = rotate.data?.rotateClientSecret;
  if (done)
    return (
      <Dialog title={`New secret for ${client.clientName}`} onClose={onClose}>
        <SecretOnce label="Client secret" secret={done.clientSecret} />
        <p>{done.previousSecretExpiresAt ? <>The old secret works until <When at={done.previousSecretExpiresAt} />.</> : "The old secret no longer works."}</p>
      </Dialog>
    );
  return (
    <ConfirmDialog
      title={`Rotate the secret of ${client.clientName}?`}
      confirmLabel="Rotate secret"
      pending={rotate.isPending}
      error={rotate.error}
      onClose={onClose}
      onConfirm={() => rotate.mutate({ rs: rs.id, clientId: client.clientId, graceSeconds: grace })}
    >
      <p>A new secret is shown once. Whatever uses the current one must switch to it before the grace ends, or its token requests to {rs.name} fail.</p>
      <SelectField label="Grace for the old secret" name="graceSeconds" value={String(grace)} onChange={(e) => setGrace(Number(e.target.value))}>
        {GRACES.map((g) => (
          <option key={g.seconds} value={g.seconds}>
            {g.label}
          </option>
        ))}
      </SelectField>
    </ConfirmDialog>
  );
}

/** Tools a set of scopes reaches on the server (public tools stay reachable with any token). */
function toolsReached(rs: Server, scopes: string[]): string[] {
  const names = new Set<string>();
  for (const sc of rs.scopes) if (scopes.includes(sc.scopeId)) for (const t of sc.tools) names.add(t.name);
  return [...names].sort();
}

export function RevokeDialog(p: { rs: Server; clientId: string; name: string; scopes: string[]; prereg: boolean; onClose: () => void; onDone: (message: string) => void }) {
  const keys = [[CLIENTS_KEY], ["applications"]];
  const connection = useGraphMutation(RevokeConnectionDocument, keys);
  const prereg = useRestMutation<unknown, void>("POST", () => `/svc/resource-servers/${p.rs.id}/clients/${encodeURIComponent(p.clientId)}/revoke`, keys, () => ({}));
  const m = p.prereg ? prereg : connection;
  const tools = toolsReached(p.rs, p.scopes);
  return (
    <ConfirmDialog
      title={`Revoke ${p.name}?`}
      confirmLabel={`Revoke ${p.name}`}
      pending={m.isPending}
      error={m.error}
      onClose={p.onClose}
      onConfirm={() => {
        const done = { onSuccess: () => p.onDone(`${p.name} revoked.`) };
        if (p.prereg) prereg.mutate(undefined, done);
        else connection.mutate({ rs: p.rs.id, clientId: p.clientId }, done);
      }}
    >
      <p>What stops working first, at once:</p>
      <ul>
        <li>every token {p.name} holds for {p.rs.name} introspects inactive, and it gets no new one;</li>
        <li>{tools.length > 0 ? <>calls to {tools.map((t) => <code key={t}>{t} </code>)}through {p.name};</> : "no scoped tool was reachable through it;"}</li>
        <li>{p.prereg ? "the client itself: it cannot be used again (register a new one)." : `only this connection: ${p.name} keeps its other connections, and may ask to connect to ${p.rs.name} again.`}</li>
      </ul>
    </ConfirmDialog>
  );
}

export function ApproveRedirectsDialog(p: { rs: Server; clientId: string; name: string; current: string[]; staged: string[]; onClose: () => void; onDone: (message: string) => void }) {
  const approve = useGraphMutation(ApproveClientRedirectsDocument, [[CLIENTS_KEY]]);
  return (
    <Dialog title={`Redirect change of ${p.name}`} onClose={p.onClose} wide>
      <p>
        {p.name} changed the redirect URIs in its metadata document. Sign-ins keep using the current ones until you approve: codes would be sent to the new addresses.
      </p>
      <Diff label="Redirect URIs" before={[...p.current].sort().join("\n")} after={[...p.staged].sort().join("\n")} />
      <ErrorAlert error={approve.error} />
      <div className="actions">
        <button type="button" onClick={p.onClose}>
          Not now
        </button>
        <button type="button" className="button-primary" disabled={approve.isPending} onClick={() => approve.mutate({ rs: p.rs.id, clientId: p.clientId }, { onSuccess: () => p.onDone(`Redirect URIs of ${p.name} approved.`) })}>
          Approve the new redirect URIs
        </button>
      </div>
    </Dialog>
  );
}
