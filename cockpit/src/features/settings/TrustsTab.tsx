// Settings → Trusts (docs/enterprise-agents.md; decisions 0047, 0048): the identity providers
// trusted to issue ID-JAGs for the workspace (/svc/oocmgr/id-jag-trusts) and the workload identity
// trusts (/svc/spire/trust-domains): list, add (the server's message under the field it names),
// delete with what stops working. Keys are a JWKS URL or an inline public JWKS (JSON).
import { useState } from "react";
import { fieldErrorOf, formErrorOf } from "../../api/errors";
import { useRest, useRestMutation } from "../../app/data";
import { canWrite, useSignedIn } from "../../app/session";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { DataTable, When } from "../../components/DataTable";
import { Dialog } from "../../components/Dialog";
import { ErrorAlert, Loading, Notice } from "../../components/ErrorAlert";
import { CheckboxField, SelectField, TextField } from "../../components/TextField";

export interface IdJagTrust {
  id: string;
  name: string;
  issuer: string;
  jwks_uri: string | null;
  allowed_algs: string[];
  subject_claim: string;
  jit_create_users: boolean;
  tenant: string | null;
  auto_approve_group_ids: string[];
  provider_id: string | null;
  created_at: string;
}
export interface WorkloadTrust {
  id: string;
  name: string;
  issuer: string | null;
  trust_domain: string | null;
  jwks_uri: string | null;
  audience: string;
  rules: { subject?: string; pattern?: string; client_id: string }[];
  created_at: string;
}
export const TRUSTS_KEY = "trusts";
const ID_JAG = "/svc/oocmgr/id-jag-trusts";
const WORKLOAD = "/svc/spire/trust-domains";

type Action = { kind: "add-idjag" | "add-workload" } | { kind: "delete-idjag"; trust: IdJagTrust } | { kind: "delete-workload"; trust: WorkloadTrust };

/** The keys field: a URL, or an inline JWKS when it starts with "{". */
function keysOf(value: string): { jwks_uri: string } | { jwks: unknown } {
  const v = value.trim();
  if (!v.startsWith("{")) return { jwks_uri: v };
  try {
    return { jwks: JSON.parse(v) };
  } catch {
    // Sent as it is: the server names what is wrong with it.
    return { jwks: v };
  }
}

export function TrustsTab() {
  const s = useSignedIn();
  const writable = canWrite(s);
  const idJag = useRest<{ items: IdJagTrust[] }>([TRUSTS_KEY, "id-jag"], ID_JAG);
  const workload = useRest<{ items: WorkloadTrust[] }>([TRUSTS_KEY, "workload"], WORKLOAD);
  const removeIdJag = useRestMutation<void, string>("DELETE", (id) => `${ID_JAG}/${id}`, [[TRUSTS_KEY, "id-jag"]], () => undefined);
  const removeWorkload = useRestMutation<void, string>("DELETE", (id) => `${WORKLOAD}/${id}`, [[TRUSTS_KEY, "workload"]], () => undefined);
  const [action, setAction] = useState<Action | null>(null);
  const [notice, setNotice] = useState("");
  const done = (message: string) => () => (setAction(null), setNotice(message));
  return (
    <>
      <Notice>{notice}</Notice>
      <section aria-labelledby="idjag-title" className="panel">
        <div className="panel-head">
          <h2 id="idjag-title">ID-JAG issuers</h2>
          {writable && (
            <button type="button" className="button-primary" onClick={() => setAction({ kind: "add-idjag" })}>
              Add an ID-JAG issuer
            </button>
          )}
        </div>
        <p className="muted">Identity providers whose identity assertion grants (ID-JAG) agents exchange for tokens of this workspace&apos;s applications, on behalf of a signed-in person.</p>
        {idJag.isPending ? (
          <Loading what="ID-JAG issuers" />
        ) : idJag.error ? (
          <ErrorAlert error={idJag.error} />
        ) : (
          <DataTable<IdJagTrust>
            caption="Trusted ID-JAG issuers"
            rows={idJag.data.items}
            rowKey={(t) => t.id}
            empty="No ID-JAG issuer yet."
            columns={[
              { header: "Name", rowHeader: true, cell: (t) => t.name },
              { header: "Issuer", cell: (t) => <code>{t.issuer}</code> },
              { header: "Keys", cell: (t) => (t.jwks_uri ? <code>{t.jwks_uri}</code> : "inline JWKS") },
              { header: "Subject", cell: (t) => <code>{t.subject_claim}</code> },
              { header: "New people", cell: (t) => (t.jit_create_users ? "created as members" : "refused") },
              { header: "Added", cell: (t) => <When at={t.created_at} /> },
            ]}
            actions={(t) =>
              writable && (
                <button type="button" className="button-small button-danger" onClick={() => setAction({ kind: "delete-idjag", trust: t })}>
                  Delete<span className="visually-hidden"> {t.name}</span>
                </button>
              )
            }
          />
        )}
      </section>
      <section aria-labelledby="workload-title" className="panel">
        <div className="panel-head">
          <h2 id="workload-title">Workload identity trusts</h2>
          {writable && (
            <button type="button" className="button-primary" onClick={() => setAction({ kind: "add-workload" })}>
              Add a workload trust
            </button>
          )}
        </div>
        <p className="muted">SPIFFE trust domains and other workload issuers whose JWTs authenticate machine clients of this workspace, each subject mapped to a client by a rule.</p>
        {workload.isPending ? (
          <Loading what="workload trusts" />
        ) : workload.error ? (
          <ErrorAlert error={workload.error} />
        ) : (
          <DataTable<WorkloadTrust>
            caption="Workload identity trusts"
            rows={workload.data.items}
            rowKey={(t) => t.id}
            empty="No workload trust yet."
            columns={[
              { header: "Name", rowHeader: true, cell: (t) => t.name },
              { header: "Trust domain or issuer", cell: (t) => <code>{t.trust_domain ?? t.issuer}</code> },
              { header: "Audience", cell: (t) => <code>{t.audience}</code> },
              { header: "Rules", cell: (t) => t.rules.map((r) => <code key={(r.subject ?? r.pattern) + r.client_id} className="small">{`${r.subject ?? r.pattern} → ${r.client_id} `}</code>) },
              { header: "Added", cell: (t) => <When at={t.created_at} /> },
            ]}
            actions={(t) =>
              writable && (
                <button type="button" className="button-small button-danger" onClick={() => setAction({ kind: "delete-workload", trust: t })}>
                  Delete<span className="visually-hidden"> {t.name}</span>
                </button>
              )
            }
          />
        )}
      </section>
      {action?.kind === "add-idjag" && <AddIdJagDialog onClose={() => setAction(null)} onAdded={(name) => done(`${name} added.`)()} />}
      {action?.kind === "add-workload" && <AddWorkloadDialog onClose={() => setAction(null)} onAdded={(name) => done(`${name} added.`)()} />}
      {action?.kind === "delete-idjag" && (
        <ConfirmDialog
          title={`Delete the ID-JAG issuer ${action.trust.name}?`}
          confirmLabel="Delete issuer"
          typeToConfirm={action.trust.name}
          pending={removeIdJag.isPending}
          error={removeIdJag.error}
          onClose={() => setAction(null)}
          onConfirm={() => removeIdJag.mutate(action.trust.id, { onSuccess: done(`${action.trust.name} deleted.`) })}
        >
          <p>
            Agents can no longer exchange ID-JAGs issued by <code>{action.trust.issuer}</code> for tokens of this workspace: the next exchange is refused. Tokens already issued stay valid until
            they expire or their connection is revoked (Access requests).
          </p>
        </ConfirmDialog>
      )}
      {action?.kind === "delete-workload" && (
        <ConfirmDialog
          title={`Delete the workload trust ${action.trust.name}?`}
          confirmLabel="Delete trust"
          typeToConfirm={action.trust.name}
          pending={removeWorkload.isPending}
          error={removeWorkload.error}
          onClose={() => setAction(null)}
          onConfirm={() => removeWorkload.mutate(action.trust.id, { onSuccess: done(`${action.trust.name} deleted.`) })}
        >
          <p>
            Workloads of <code>{action.trust.trust_domain ?? action.trust.issuer}</code> can no longer authenticate as {action.trust.rules.map((r) => r.client_id).join(", ")}: their next token request
            is refused. Tokens already issued stay valid until they expire.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}

const IDJAG_FIELDS = ["name", "issuer", "jwks_uri", "jwks", "subject_claim", "tenant"] as const;

function AddIdJagDialog({ onClose, onAdded }: { onClose: () => void; onAdded: (name: string) => void }) {
  const add = useRestMutation<IdJagTrust, Record<string, unknown>>("POST", () => ID_JAG, [[TRUSTS_KEY, "id-jag"]]);
  const e = add.error;
  return (
    <Dialog title="Add an ID-JAG issuer" onClose={onClose} wide>
      <form
        onSubmit={(ev) => {
          ev.preventDefault();
          const f = new FormData(ev.currentTarget);
          const tenant = String(f.get("tenant")).trim();
          add.mutate(
            {
              name: String(f.get("name")).trim(),
              issuer: String(f.get("issuer")).trim(),
              ...keysOf(String(f.get("jwks_uri"))),
              subject_claim: String(f.get("subject_claim")),
              jit_create_users: f.get("jit_create_users") === "on",
              ...(tenant ? { tenant } : {}),
            },
            { onSuccess: (t) => onAdded(t.name) },
          );
        }}
      >
        <TextField label="Name" name="name" required error={fieldErrorOf(e, "name")} />
        <TextField label="Issuer" name="issuer" type="url" required placeholder="https://acme.okta.com" hint="The IdP's iss, exactly." error={fieldErrorOf(e, "issuer")} />
        <TextField
          label="Keys"
          name="jwks_uri"
          required
          placeholder="https://acme.okta.com/oauth2/v1/keys"
          hint="Its JWKS URL (https), or paste its public JWKS as JSON."
          error={fieldErrorOf(e, "jwks_uri") ?? fieldErrorOf(e, "jwks")}
        />
        <SelectField label="Subject claim" name="subject_claim" defaultValue="sub" error={fieldErrorOf(e, "subject_claim")}>
          <option value="sub">sub (issuer + sub, linked once)</option>
          <option value="sub_id">sub_id (subject identifier)</option>
          <option value="email">email (the workspace&apos;s user with that email)</option>
        </SelectField>
        <TextField label="Tenant claim" name="tenant" hint="Only for a multi-tenant issuer: the tenant claim an assertion must carry." error={fieldErrorOf(e, "tenant")} />
        <CheckboxField label="Create unknown people as members (needs an email claim)" name="jit_create_users" />
        <ErrorAlert error={formErrorOf(e, IDJAG_FIELDS)} />
        <div className="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button-primary" disabled={add.isPending}>
            Add issuer
          </button>
        </div>
      </form>
    </Dialog>
  );
}

const WORKLOAD_FIELDS = ["name", "trust_domain", "issuer", "jwks_uri", "jwks", "audience", "rules"] as const;

function AddWorkloadDialog({ onClose, onAdded }: { onClose: () => void; onAdded: (name: string) => void }) {
  const add = useRestMutation<WorkloadTrust, Record<string, unknown>>("POST", () => WORKLOAD, [[TRUSTS_KEY, "workload"]]);
  const e = add.error;
  return (
    <Dialog title="Add a workload trust" onClose={onClose} wide>
      <form
        onSubmit={(ev) => {
          ev.preventDefault();
          const f = new FormData(ev.currentTarget);
          const domain = String(f.get("trust_domain")).trim();
          const issuer = String(f.get("issuer")).trim();
          const subject = String(f.get("rule_subject")).trim();
          add.mutate(
            {
              name: String(f.get("name")).trim(),
              ...(domain ? { trust_domain: domain } : {}),
              ...(issuer ? { issuer } : {}),
              ...keysOf(String(f.get("jwks_uri"))),
              audience: String(f.get("audience")).trim(),
              rules: [{ [subject.includes("*") ? "pattern" : "subject"]: subject, client_id: String(f.get("rule_client")).trim() }],
            },
            { onSuccess: (t) => onAdded(t.name) },
          );
        }}
      >
        <TextField label="Name" name="name" required error={fieldErrorOf(e, "name")} />
        <TextField label="Trust domain" name="trust_domain" placeholder="prod.acme.internal" hint="A SPIFFE trust domain; or give an issuer, or both." error={fieldErrorOf(e, "trust_domain")} />
        <TextField label="Issuer" name="issuer" placeholder="https://oidc.acme.internal" error={fieldErrorOf(e, "issuer")} />
        <TextField label="Keys" name="jwks_uri" required hint="Its JWKS URL (https), or paste its public JWKS as JSON." error={fieldErrorOf(e, "jwks_uri") ?? fieldErrorOf(e, "jwks")} />
        <TextField label="Audience" name="audience" required hint="The aud the workload's JWT must carry." error={fieldErrorOf(e, "audience")} />
        <fieldset>
          <legend>First rule (more through the API)</legend>
          <TextField label="Subject" name="rule_subject" required placeholder="spiffe://prod.acme.internal/billing/*" hint="An exact subject, or a pattern: * matches anything but /." />
          <TextField label="Client id it authenticates as" name="rule_client" required />
          {fieldErrorOf(e, "rules") && <p className="field-error">{fieldErrorOf(e, "rules")}</p>}
        </fieldset>
        <ErrorAlert error={formErrorOf(e, WORKLOAD_FIELDS)} />
        <div className="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button-primary" disabled={add.isPending}>
            Add trust
          </button>
        </div>
      </form>
    </Dialog>
  );
}
