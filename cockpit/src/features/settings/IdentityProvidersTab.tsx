// Settings → Identity providers (docs/federation.md): the workspace's upstream OpenID providers
// with whom they sign in (end users, admins), add one (the server fetches and checks the issuer's
// discovery document first; what failed is shown under the issuer field), edit, enable / disable
// and delete, each change saying what it affects. The client secret is write-only.
import { useState } from "react";
import { fieldErrorOf, formErrorOf } from "../../api/errors";
import { useGraph, useGraphMutation, useRestMutation } from "../../app/data";
import { canWrite, useSignedIn } from "../../app/session";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { Badge, DataTable, When } from "../../components/DataTable";
import { Dialog } from "../../components/Dialog";
import { ErrorAlert, Loading, Notice } from "../../components/ErrorAlert";
import { CheckboxField, SelectField, TextField } from "../../components/TextField";
import {
  CreateIdentityProviderDocument,
  DeleteIdentityProviderDocument,
  IdentityProvidersDocument,
  UpdateIdentityProviderDocument,
  type IdentityProvidersQuery,
} from "../../graphql/generated/graphql";

export type Provider = IdentityProvidersQuery["identityProviders"][number];
export const PROVIDERS_KEY = "identity-providers";
const AUDIENCE: Record<string, string> = { end_users: "End users", admins: "Administrators (cockpit)" };

type Action = { kind: "create" } | { kind: "edit" | "disable" | "enable" | "delete"; provider: Provider };

export function IdentityProvidersTab() {
  const s = useSignedIn();
  const writable = canWrite(s);
  const list = useGraph([PROVIDERS_KEY], IdentityProvidersDocument, { first: 1000 });
  const update = useGraphMutation(UpdateIdentityProviderDocument, [[PROVIDERS_KEY]]);
  const remove = useGraphMutation(DeleteIdentityProviderDocument, [[PROVIDERS_KEY]]);
  const [action, setAction] = useState<Action | null>(null);
  const [notice, setNotice] = useState("");
  const done = (message: string) => () => (setAction(null), setNotice(message));
  return (
    <section aria-labelledby="idp-title" className="panel">
      <div className="panel-head">
        <h2 id="idp-title">Identity providers</h2>
        {writable && (
          <button type="button" className="button-primary" onClick={() => setAction({ kind: "create" })}>
            Add an identity provider
          </button>
        )}
      </div>
      <p className="muted">
        People of the workspace sign in through these OpenID providers (Okta, Entra ID, Google Workspace, Keycloak…) instead of a Toolgate password: end users on the sign-in page, administrators
        with &ldquo;Continue with&rdquo; on the cockpit&apos;s sign-in.
      </p>
      <Notice>{notice}</Notice>
      {list.isPending ? (
        <Loading what="identity providers" />
      ) : list.error ? (
        <ErrorAlert error={list.error} />
      ) : (
        <DataTable<Provider>
          caption="Identity providers"
          rows={list.data.identityProviders}
          rowKey={(p) => p.id}
          empty="No identity provider yet."
          columns={[
            { header: "Name", rowHeader: true, cell: (p) => p.name },
            { header: "Issuer", cell: (p) => <code>{p.issuer}</code> },
            { header: "For", cell: (p) => p.allowedFor.map((a) => AUDIENCE[a] ?? a).join(", ") },
            { header: "Email domains", cell: (p) => (p.emailDomains.length ? p.emailDomains.join(", ") : "—") },
            { header: "Status", cell: (p) => (p.enabled ? <Badge tone="ok">Enabled</Badge> : <Badge tone="warn">Disabled</Badge>) },
            { header: "Added", cell: (p) => <When at={p.createdAt} /> },
          ]}
          actions={(p) =>
            writable && (
              <>
                <button type="button" className="button-small" onClick={() => setAction({ kind: "edit", provider: p })}>
                  Edit<span className="visually-hidden"> {p.name}</span>
                </button>
                {p.enabled ? (
                  <button type="button" className="button-small button-danger" onClick={() => setAction({ kind: "disable", provider: p })}>
                    Disable<span className="visually-hidden"> {p.name}</span>
                  </button>
                ) : (
                  <button type="button" className="button-small" onClick={() => setAction({ kind: "enable", provider: p })}>
                    Enable<span className="visually-hidden"> {p.name}</span>
                  </button>
                )}
                <button type="button" className="button-small button-danger" onClick={() => setAction({ kind: "delete", provider: p })}>
                  Delete<span className="visually-hidden"> {p.name}</span>
                </button>
              </>
            )
          }
        />
      )}
      {action?.kind === "create" && <ProviderDialog onClose={() => setAction(null)} onSaved={(name, redirect) => done(`${name} added. Register ${redirect} at the provider as this client's redirect URI.`)()} />}
      {action?.kind === "edit" && <ProviderDialog provider={action.provider} onClose={() => setAction(null)} onSaved={(name) => done(`${name} saved.`)()} />}
      {(action?.kind === "disable" || action?.kind === "enable") && (
        <ConfirmDialog
          title={`${action.kind === "disable" ? "Disable" : "Enable"} ${action.provider.name}?`}
          confirmLabel={action.kind === "disable" ? "Disable provider" : "Enable provider"}
          pending={update.isPending}
          error={update.error}
          onClose={() => setAction(null)}
          onConfirm={() =>
            update.mutate({ id: action.provider.id, input: { enabled: action.kind === "enable" } }, { onSuccess: done(`${action.provider.name} ${action.kind === "enable" ? "enabled" : "disabled"}.`) })
          }
        >
          <p>
            {action.kind === "disable"
              ? `“Continue with ${action.provider.name}” disappears from the sign-in pages (${action.provider.allowedFor.map((a) => AUDIENCE[a] ?? a).join(", ").toLowerCase()}), and sign-ins already under way through it fail. Accounts and their links stay; people with a password or passkey can still use it.`
              : `“Continue with ${action.provider.name}” appears again on the sign-in pages it is allowed for.`}
          </p>
        </ConfirmDialog>
      )}
      {action?.kind === "delete" && (
        <ConfirmDialog
          title={`Delete ${action.provider.name}?`}
          confirmLabel="Delete provider"
          typeToConfirm={action.provider.name}
          pending={remove.isPending}
          error={remove.error}
          onClose={() => setAction(null)}
          onConfirm={() => remove.mutate({ id: action.provider.id }, { onSuccess: done(`${action.provider.name} deleted.`) })}
        >
          <p>
            Nobody can sign in through {action.provider.name} any more, and every account&apos;s link to it is deleted: people who had only this way in need a password, a passkey or another provider.
            The accounts themselves stay, with their groups and roles. ID-JAG trusts created from this provider keep working (they copied its issuer and keys).
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

const FIELDS = ["name", "issuer", "client_id", "client_secret", "scopes", "email_domains", "allowed_for", "token_endpoint_auth_method"] as const;

/** Add or edit a provider; the server's message lands under the field it names (issuer discovery failures under Issuer). */
function ProviderDialog({ provider, onClose, onSaved }: { provider?: Provider; onClose: () => void; onSaved: (name: string, redirectUri: string) => void }) {
  const create = useGraphMutation(CreateIdentityProviderDocument, [[PROVIDERS_KEY]]);
  // Edits go through PATCH /svc/oocmgr/providers/:id: only it can remove a stored secret (null),
  // which switching to private_key_jwt needs; the graph's input has no way to say "remove".
  const update = useRestMutation<unknown, { id: string; body: Record<string, unknown> }>("PATCH", (v) => `/svc/oocmgr/providers/${v.id}`, [[PROVIDERS_KEY]], (v) => v.body);
  const m = provider ? update : create;
  const [method, setMethod] = useState(provider?.tokenEndpointAuthMethod ?? "client_secret_basic");
  const error = m.error;
  const submit = (form: FormData) => {
    const secret = String(form.get("client_secret") ?? "");
    const input = {
      name: String(form.get("name")).trim(),
      issuer: String(form.get("issuer")).trim(),
      clientId: String(form.get("client_id")).trim(),
      tokenEndpointAuthMethod: method,
      scopes: String(form.get("scopes")).trim(),
      emailDomains: String(form.get("email_domains"))
        .split(/[\s,]+/)
        .filter(Boolean),
      allowedFor: ["end_users", "admins"].filter((a) => form.get(`allowed_${a}`)),
      jitProvisioning: form.get("jit") === "on",
      trustEmail: form.get("trust_email") === "on",
      ...(method === "client_secret_basic" && secret ? { clientSecret: secret } : {}),
    };
    if (provider) {
      // Only what changed (an unchanged issuer is not fetched again), in the REST field names.
      const changed = Object.entries(input).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify((provider as Record<string, unknown>)[k]));
      const body: Record<string, unknown> = Object.fromEntries(changed.map(([k, v]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), v]));
      // Switching to private_key_jwt removes the stored secret (the server refuses both at once).
      if (method === "private_key_jwt" && provider.clientSecretSet) body.client_secret = null;
      update.mutate({ id: provider.id, body }, { onSuccess: () => onSaved(input.name, provider.redirectUri) });
    } else create.mutate({ input }, { onSuccess: (d) => onSaved(d.createIdentityProvider.name, d.createIdentityProvider.redirectUri) });
  };
  return (
    <Dialog title={provider ? `Edit ${provider.name}` : "Add an identity provider"} onClose={onClose} wide>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          submit(new FormData(e.currentTarget));
        }}
      >
        <TextField label="Name" name="name" defaultValue={provider?.name} required hint="Shown on the sign-in pages: “Continue with <name>”." error={fieldErrorOf(error, "name")} />
        <TextField
          label="Issuer"
          name="issuer"
          type="url"
          defaultValue={provider?.issuer}
          required
          placeholder="https://acme.okta.com"
          hint="Toolgate reads <issuer>/.well-known/openid-configuration and checks it before saving."
          error={fieldErrorOf(error, "issuer")}
        />
        <TextField label="Client id" name="client_id" defaultValue={provider?.clientId} required error={fieldErrorOf(error, "client_id")} />
        <SelectField
          label="Client authentication"
          name="token_endpoint_auth_method"
          value={method}
          onChange={(e) => setMethod(e.target.value)}
          error={fieldErrorOf(error, "token_endpoint_auth_method")}
          hint={method === "private_key_jwt" ? "Toolgate signs a client assertion with its own key: register its JWKS URL at the provider." : undefined}
        >
          <option value="client_secret_basic">Client secret</option>
          <option value="private_key_jwt">Private key JWT (no secret)</option>
        </SelectField>
        {method === "client_secret_basic" && (
          <TextField
            label="Client secret"
            name="client_secret"
            type="password"
            autoComplete="off"
            hint={provider?.clientSecretSet ? "A secret is stored (never shown). Leave empty to keep it; type one to replace it." : "Stored sealed; never shown again. Leave empty for a public client (PKCE only)."}
            error={fieldErrorOf(error, "client_secret")}
          />
        )}
        <TextField label="Scopes" name="scopes" defaultValue={provider?.scopes ?? "openid email profile"} required error={fieldErrorOf(error, "scopes")} />
        <TextField
          label="Email domains"
          name="email_domains"
          defaultValue={provider?.emailDomains.join(", ")}
          hint="Comma-separated: a work email of these domains goes straight to this provider."
          error={fieldErrorOf(error, "email_domains")}
        />
        <fieldset>
          <legend>Who signs in with it</legend>
          <CheckboxField label="End users (the sign-in page of the workspace's applications)" name="allowed_end_users" id="allowed_end_users" defaultChecked={provider ? provider.allowedFor.includes("end_users") : true} />
          <CheckboxField label="Administrators (the cockpit)" name="allowed_admins" id="allowed_admins" defaultChecked={provider?.allowedFor.includes("admins") ?? false} />
          {fieldErrorOf(error, "allowed_for") && <p className="field-error">{fieldErrorOf(error, "allowed_for")}</p>}
        </fieldset>
        <CheckboxField label="Create unknown people at their first sign-in" name="jit" defaultChecked={provider?.jitProvisioning ?? true} />
        <CheckboxField label="Link existing accounts by a verified email" name="trust_email" defaultChecked={provider?.trustEmail ?? false} hint="Only when the provider vouches for the addresses it sends." />
        {provider && (
          <p className="hint">
            Redirect URI to register at the provider: <code>{provider.redirectUri}</code>
          </p>
        )}
        <ErrorAlert error={formErrorOf(error, FIELDS)} />
        <div className="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button-primary" disabled={m.isPending}>
            {provider ? "Save" : "Add provider"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
