// Register (pre-register) a client for one application: name, kind, redirect URIs, allowed
// scopes, token lifetime; a confidential client's secret is shown once.
import { useState } from "react";
import { fieldErrorOf, formErrorOf } from "../../api/errors";
import { useGraphMutation } from "../../app/data";
import { Dialog } from "../../components/Dialog";
import { ErrorAlert } from "../../components/ErrorAlert";
import { CopyButton, SecretOnce } from "../../components/SecretOnce";
import { CheckboxField, SelectField, TextField } from "../../components/TextField";
import { PreRegisterClientDocument, type ClientKind } from "../../graphql/generated/graphql";
import { CLIENTS_KEY, type Server } from "./ClientsPage";
import { KIND_ONE } from "./labels";

const FIELDS = ["clientName", "redirectUris", "allowedScopes", "tokenLifetime", "description", "kind", "tokenEndpointAuthMethod"];

export function CreateClientDialog({ servers, onClose }: { servers: Server[]; onClose: () => void }) {
  const create = useGraphMutation(PreRegisterClientDocument, [[CLIENTS_KEY], ["applications"]]);
  const [rsId, setRsId] = useState(servers[0]!.id);
  const [kind, setKind] = useState<ClientKind>("m2m");
  const [isPublic, setPublic] = useState(false);
  const rs = servers.find((x) => x.id === rsId)!;
  const done = create.data?.preRegisterClient;
  if (done)
    return (
      <Dialog title={`${done.client.clientName} registered`} onClose={onClose}>
        <p>
          Client id: <code data-testid="client-id">{done.clientId}</code> <CopyButton text={done.clientId} label="Copy client id" />
        </p>
        {done.clientSecret ? <SecretOnce label="Client secret" secret={done.clientSecret} /> : <p>A public client: no secret; it signs users in with PKCE.</p>}
      </Dialog>
    );
  const e = create.error;
  return (
    <Dialog title="Register a client" onClose={onClose}>
      <form
        onSubmit={(ev) => {
          ev.preventDefault();
          const f = new FormData(ev.currentTarget);
          const uris = String(f.get("redirectUris") ?? "")
            .split(/\s+/)
            .filter(Boolean);
          create.mutate({
            rs: rsId,
            input: {
              clientName: String(f.get("clientName")),
              kind,
              description: String(f.get("description") ?? "") || null,
              redirectUris: uris,
              allowedScopes: f.getAll("allowedScopes").map(String),
              tokenLifetime: Number(f.get("tokenLifetime")),
              tokenEndpointAuthMethod: kind !== "m2m" && isPublic ? "none" : null,
            },
          });
        }}
      >
        <SelectField label="Application" name="resourceServerId" value={rsId} onChange={(ev) => setRsId(ev.target.value)}>
          {servers.map((x) => (
            <option key={x.id} value={x.id}>
              {x.name}
            </option>
          ))}
        </SelectField>
        <TextField label="Client name" name="clientName" required error={fieldErrorOf(e, "clientName")} />
        <SelectField label="Client type" name="clientKind" value={kind} onChange={(ev) => setKind(ev.target.value as ClientKind)}>
          {Object.entries(KIND_ONE).map(([v, l]) => (
            <option key={v} value={v}>
              {l}
            </option>
          ))}
        </SelectField>
        <TextField label="Description" name="description" error={fieldErrorOf(e, "description")} />
        {kind !== "m2m" && (
          <>
            <TextField label="Redirect URIs" name="redirectUris" required hint="Space-separated; https, or http on a loopback address (any port)." error={fieldErrorOf(e, "redirectUris")} />
            <CheckboxField label="Public client (no secret; PKCE only)" name="public" checked={isPublic} onChange={(ev) => setPublic(ev.target.checked)} hint="For agents, apps and command-line tools that cannot keep a secret." />
          </>
        )}
        <fieldset>
          <legend>Allowed scopes on {rs.name}</legend>
          {rs.scopes.length === 0 && <p className="hint">The application has no scope yet.</p>}
          {rs.scopes.map((sc) => (
            <CheckboxField key={sc.scopeId} label={sc.scopeId} name="allowedScopes" id={`scope-${sc.scopeId}`} value={sc.scopeId} />
          ))}
          {fieldErrorOf(e, "allowedScopes") && <span className="field-error">{fieldErrorOf(e, "allowedScopes")}</span>}
        </fieldset>
        <TextField label="Token lifetime (seconds)" name="tokenLifetime" type="number" min={300} max={86400} defaultValue={3600} required hint="300 to 86400; one to 24 hours is recommended." error={fieldErrorOf(e, "tokenLifetime")} />
        <ErrorAlert error={formErrorOf(e, FIELDS)} />
        <div className="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button-primary" disabled={create.isPending}>
            Register client
          </button>
        </div>
      </form>
    </Dialog>
  );
}
