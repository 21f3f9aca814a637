// Settings: the signed-in admin's own second factors (authenticator app with its QR code and
// recovery codes, passkeys) and the workspace's rule that owners and admins need one
// (docs/operations.md "Second factors"); webhooks, identity providers, trusts and the metrics
// status on their own tabs (?tab=webhooks, idp, trusts, metrics).
import { useState } from "react";
import { useSearchParams } from "react-router";
import { messageOf } from "../../api/errors";
import { passkeyRegistration } from "../../api/webauthn";
import { rest } from "../../api/rest";
import { useRest, useRestMutation } from "../../app/data";
import { canWrite, useSession, useSignedIn } from "../../app/session";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { DataTable, When } from "../../components/DataTable";
import { ErrorAlert, Loading, Notice } from "../../components/ErrorAlert";
import { usePageTitle } from "../../components/Page";
import { CopyButton } from "../../components/SecretOnce";
import { CheckboxField, TextField } from "../../components/TextField";
import { WebhooksTab } from "./WebhooksTab";
import { IdentityProvidersTab } from "./IdentityProvidersTab";
import { TrustsTab } from "./TrustsTab";
import { MetricsTab } from "./MetricsTab";

interface MfaStatus {
  totp: { enrolled: boolean; confirmed_at: string | null; recovery_codes_left: number };
  passkeys: number;
}
interface Passkey {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}
const KEY = "settings";
const TABS = [
  { id: "mfa", label: "Second factors" },
  { id: "webhooks", label: "Webhooks" },
  { id: "idp", label: "Identity providers" },
  { id: "trusts", label: "Trusts" },
  { id: "metrics", label: "Metrics", writersOnly: true },
] as const;

export function SettingsPage() {
  usePageTitle("Settings");
  const s = useSignedIn();
  const [params, setParams] = useSearchParams();
  const tabs = s.enrolOnly ? TABS.filter((t) => t.id === "mfa") : TABS.filter((t) => !("writersOnly" in t) || canWrite(s));
  const tab = tabs.find((t) => t.id === params.get("tab"))?.id ?? "mfa";
  return (
    <>
      <h1>Settings</h1>
      {tabs.length > 1 && (
        <nav aria-label="Settings" className="tabs">
          {tabs.map((t) => (
            <a
              key={t.id}
              href={`?tab=${t.id}`}
              aria-current={t.id === tab ? "page" : undefined}
              onClick={(e) => {
                e.preventDefault();
                setParams({ tab: t.id });
              }}
            >
              {t.label}
            </a>
          ))}
        </nav>
      )}
      {(s.enrolOnly || params.get("enrol")) && s.enrolOnly && (
        <p className="alert alert-info" role="status">
          This workspace requires a second factor of owners and admins. Add one below, then sign out and sign in again with it: until then the cockpit shows only this page.
        </p>
      )}
      {tab === "webhooks" ? (
        <WebhooksTab />
      ) : tab === "idp" ? (
        <IdentityProvidersTab />
      ) : tab === "trusts" ? (
        <TrustsTab />
      ) : tab === "metrics" ? (
        <MetricsTab />
      ) : (
        <>
          <Authenticator />
          <Passkeys />
          {!s.enrolOnly && <WorkspaceMfaRule />}
        </>
      )}
    </>
  );
}

function Authenticator() {
  const s = useSignedIn();
  const status = useRest<MfaStatus>([KEY, "mfa"], "/svc/uflow/mfa");
  const enroll = useRestMutation<{ secret: string; otpauth_uri: string; qr_code: string }, void>("POST", () => "/svc/uflow/mfa/totp/enroll", [], () => undefined);
  const confirm = useRestMutation<{ recovery_codes: string[] }, string>("POST", () => "/svc/uflow/mfa/totp/confirm", [[KEY, "mfa"]], (code) => ({ code }));
  const disable = useRestMutation<void, string>("POST", () => "/svc/uflow/mfa/totp/disable", [[KEY, "mfa"]], (code) => ({ code }));
  const [disabling, setDisabling] = useState(false);
  const [code, setCode] = useState("");
  const t = status.data?.totp;
  return (
    <section aria-labelledby="totp-title" className="panel">
      <h2 id="totp-title">Authenticator app</h2>
      {status.isPending ? (
        <Loading what="your second factors" />
      ) : status.error ? (
        <ErrorAlert error={status.error} />
      ) : confirm.data ? (
        <div className="secret">
          <p role="status">
            <strong>The authenticator is on.</strong> These ten recovery codes each sign you in once if you lose the app. They are shown only now.
          </p>
          <pre className="code" data-testid="recovery-codes">{confirm.data.recovery_codes.join("\n")}</pre>
          <CopyButton text={confirm.data.recovery_codes.join("\n")} label="Copy recovery codes" />
        </div>
      ) : t?.enrolled ? (
        <>
          <p>
            On since <When at={t.confirmed_at} />; {t.recovery_codes_left} recovery code(s) left.
          </p>
          <button type="button" className="button-danger" onClick={() => setDisabling(true)}>
            Turn the authenticator off
          </button>
        </>
      ) : enroll.data ? (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            confirm.mutate(code.trim());
          }}
        >
          <p>Scan this code with your authenticator app (or type the key), then enter the code it shows.</p>
          <img src={enroll.data.qr_code} alt={`QR code for ${enroll.data.otpauth_uri.split("?")[0]}`} width={200} height={200} className="qr" />
          <p>
            Key: <code data-testid="totp-secret">{enroll.data.secret}</code>
          </p>
          <TextField label="Code from the app" name="totpCode" value={code} onChange={(e) => setCode(e.target.value)} autoComplete="one-time-code" required />
          <button type="submit" className="button-primary" disabled={confirm.isPending}>
            Turn on
          </button>
          <ErrorAlert error={confirm.error} />
        </form>
      ) : (
        <>
          <p>Not set up. With it, signing in asks for a code from the app after the password.</p>
          <button type="button" className="button-primary" onClick={() => enroll.mutate()} disabled={enroll.isPending}>
            Set up an authenticator app
          </button>
          <ErrorAlert error={enroll.error} />
        </>
      )}
      {disabling && (
        <ConfirmDialog
          title="Turn the authenticator off?"
          confirmLabel="Turn off"
          pending={disable.isPending}
          error={disable.error}
          onClose={() => setDisabling(false)}
          onConfirm={() => disable.mutate(code.trim(), { onSuccess: () => (setDisabling(false), setCode("")) })}
        >
          <p>Signing in then needs only your password{s.role === "owner" || s.role === "admin" ? " (unless you have a passkey), and a workspace that requires a second factor will ask you to enrol one again" : ""}. Your recovery codes stop working.</p>
          <TextField label="A current code or a recovery code" name="disableCode" value={code} onChange={(e) => setCode(e.target.value)} required />
        </ConfirmDialog>
      )}
    </section>
  );
}

function Passkeys() {
  const s = useSignedIn();
  const list = useRest<{ items: Passkey[] }>([KEY, "passkeys"], "/svc/webauthn/credentials");
  const remove = useRestMutation<void, string>("DELETE", (id) => `/svc/webauthn/credentials/${encodeURIComponent(id)}`, [[KEY, "passkeys"], [KEY, "mfa"]], () => undefined);
  const [name, setName] = useState("");
  const [adding, setAdding] = useState<"" | "busy" | "done">("");
  const [error, setError] = useState<unknown>(null);
  const [removing, setRemoving] = useState<Passkey | null>(null);
  async function add() {
    setAdding("busy");
    setError(null);
    try {
      const options = await rest<Record<string, unknown>>("POST", "/svc/webauthn/register/begin", { token: s.token, body: {} });
      let response: Record<string, unknown>;
      try {
        response = await passkeyRegistration(options);
      } catch (e) {
        throw new Error(`The browser made no passkey: ${messageOf(e)}`);
      }
      await rest("POST", "/svc/webauthn/register/finish", { token: s.token, body: { response, ...(name.trim() ? { name: name.trim() } : {}) } });
      setAdding("done");
      setName("");
      await list.refetch();
    } catch (e) {
      setError(e);
      setAdding("");
    }
  }
  return (
    <section aria-labelledby="passkeys-title" className="panel">
      <h2 id="passkeys-title">Passkeys</h2>
      {list.error ? (
        <ErrorAlert error={list.error} />
      ) : (
        <DataTable<Passkey>
          caption="Your passkeys"
          rows={list.data?.items ?? []}
          rowKey={(p) => p.id}
          empty="No passkey yet."
          columns={[
            { header: "Name", rowHeader: true, cell: (p) => p.name },
            { header: "Added", cell: (p) => <When at={p.created_at} /> },
            { header: "Last used", cell: (p) => <When at={p.last_used_at} /> },
          ]}
          actions={(p) => (
            <button type="button" className="button-small button-danger" onClick={() => setRemoving(p)}>
              Remove passkey {p.name}
            </button>
          )}
        />
      )}
      <form
        className="inline-form"
        aria-label="Add a passkey"
        onSubmit={(e) => {
          e.preventDefault();
          void add();
        }}
      >
        <TextField label="Passkey name" name="passkeyName" value={name} onChange={(e) => setName(e.target.value)} placeholder="Laptop" />
        <button type="submit" disabled={adding === "busy"}>
          Add a passkey
        </button>
      </form>
      {adding === "done" && <Notice>Passkey added.</Notice>}
      <ErrorAlert error={error} />
      {removing && (
        <ConfirmDialog
          title={`Remove passkey ${removing.name}?`}
          confirmLabel="Remove passkey"
          pending={remove.isPending}
          error={remove.error}
          onClose={() => setRemoving(null)}
          onConfirm={() => remove.mutate(removing.id, { onSuccess: () => setRemoving(null) })}
        >
          <p>It can no longer sign you in. Remove it from the device too.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function WorkspaceMfaRule() {
  const s = useSignedIn();
  const { session } = useSession();
  const path = `/uflow/v2/tenants/${s.workspaceId}/mfa-policy`;
  const rule = useRest<{ require_mfa_for_admins: boolean }>([KEY, "mfa-policy"], path);
  const save = useRestMutation<{ require_mfa_for_admins: boolean }, boolean>("PUT", () => path, [[KEY, "mfa-policy"]], (v) => ({ require_mfa_for_admins: v }));
  const [confirming, setConfirming] = useState<boolean | null>(null);
  const owner = session?.role === "owner";
  return (
    <section aria-labelledby="rule-title" className="panel">
      <h2 id="rule-title">Second factor for administrators</h2>
      {rule.isPending ? (
        <Loading what="the workspace rule" />
      ) : rule.error ? (
        <ErrorAlert error={rule.error} />
      ) : (
        <>
          <CheckboxField
            label="Require a second factor of owners and admins"
            name="requireMfa"
            checked={rule.data!.require_mfa_for_admins}
            disabled={!owner}
            onChange={(e) => setConfirming(e.target.checked)}
            hint={owner ? "Only an owner changes this rule." : "Only an owner changes this rule; you can read it."}
          />
          <ErrorAlert error={save.error} />
        </>
      )}
      {confirming !== null && (
        <ConfirmDialog
          title={confirming ? "Require a second factor?" : "Stop requiring a second factor?"}
          confirmLabel={confirming ? "Require it" : "Stop requiring it"}
          pending={save.isPending}
          error={save.error}
          onClose={() => setConfirming(null)}
          onConfirm={() => save.mutate(confirming, { onSuccess: () => setConfirming(null) })}
        >
          <p>
            {confirming
              ? "Owners and admins without a second factor then get an enrol-only sign-in: they can add a factor and nothing else until they sign in with it. Nobody is locked out."
              : "Owners and admins may then sign in with a password alone."}
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
