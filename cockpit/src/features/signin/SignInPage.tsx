// Sign in: email and password (optionally into one named workspace), then the second factor the
// account has (an authenticator or recovery code, or a passkey), then the screen asked for.
// The admin login API (docs/operations.md "Second factors"): POST /svc/uflow/auth/login, then on
// 401 mfa_required POST /svc/uflow/auth/mfa or the passkey ceremony at /svc/webauthn/login/*.
import { useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { ApiError, messageOf } from "../../api/errors";
import { rest } from "../../api/rest";
import { passkeyAssertion } from "../../api/webauthn";
import { useSession, type TokenAnswer } from "../../app/session";
import { ErrorAlert } from "../../components/ErrorAlert";
import { usePageTitle } from "../../components/Page";
import { SelectField, TextField } from "../../components/TextField";
import { otherSignInMethods } from "./methods";

interface MfaStep {
  ticket: string;
  factors: ("otp" | "passkey")[];
}

const ANY = "";
const OTHER = "__other";

export function SignInPage() {
  usePageTitle("Sign in");
  const { begin, workspaces, endedBecause } = useSession();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const asked = params.get("workspace") ?? "";
  const known = workspaces.some((w) => w.id === asked);
  const [choice, setChoice] = useState(params.get("another") ? OTHER : known ? asked : asked ? OTHER : ANY);
  const [otherId, setOtherId] = useState(known ? "" : asked);
  const [mfa, setMfa] = useState<MfaStep | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const workspaceId = choice === OTHER ? otherId.trim() || undefined : choice || undefined;

  async function finish(answer: TokenAnswer) {
    const s = await begin(answer);
    const next = params.get("next");
    navigate(s.enrolOnly ? "/settings?enrol=1" : next && next.startsWith("/") && !next.startsWith("//") ? next : "/applications", { replace: true });
  }

  async function run(step: () => Promise<void>) {
    setBusy(true);
    setError(null);
    try {
      await step();
    } catch (e) {
      if (e instanceof ApiError && e.code === "mfa_required") {
        setMfa({ ticket: String(e.details.mfa_ticket), factors: (e.details.factors as MfaStep["factors"]) ?? [] });
      } else setError(e);
    } finally {
      setBusy(false);
    }
  }

  const password = (form: FormData) =>
    run(async () => {
      const body = { email: String(form.get("email")), password: String(form.get("password")), ...(workspaceId ? { workspace_id: workspaceId } : {}) };
      await finish(await rest<TokenAnswer>("POST", "/svc/uflow/auth/login", { body }));
    });

  const code = (form: FormData) =>
    run(async () => {
      await finish(await rest<TokenAnswer>("POST", "/svc/uflow/auth/mfa", { body: { mfa_ticket: mfa!.ticket, code: String(form.get("code")).trim() } }));
    });

  const passkey = () =>
    run(async () => {
      const options = await rest<Record<string, unknown>>("POST", "/svc/webauthn/login/begin", { body: { mfa_ticket: mfa!.ticket } });
      let response: Record<string, unknown>;
      try {
        response = await passkeyAssertion(options);
      } catch (e) {
        throw new Error(`The passkey was not used: ${messageOf(e)}`);
      }
      await finish(await rest<TokenAnswer>("POST", "/svc/webauthn/login/finish", { body: { mfa_ticket: mfa!.ticket, response } }));
    });

  const retryAfter = error instanceof ApiError && typeof error.details.retry_after === "number" ? error.details.retry_after : null;

  return (
    <main id="main" className="signin">
      <h1>Sign in to Toolgate</h1>
      {endedBecause && !error && (
        <p role="status" className="alert alert-info">
          {endedBecause}
        </p>
      )}
      {!mfa ? (
        <form
          aria-label="Sign in with email and password"
          onSubmit={(e) => {
            e.preventDefault();
            void password(new FormData(e.currentTarget));
          }}
        >
          <TextField label="Email" name="email" type="email" autoComplete="username" required autoFocus />
          <TextField label="Password" name="password" type="password" autoComplete="current-password" required />
          <SelectField
            label="Workspace"
            name="workspace"
            value={choice}
            onChange={(e) => setChoice(e.target.value)}
            hint="Accounts belong to one workspace. With several, choose which one to open."
          >
            <option value={ANY}>The first workspace of this email</option>
            {workspaces.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
            <option value={OTHER}>Another workspace (by its id)…</option>
          </SelectField>
          {choice === OTHER && <TextField label="Workspace id" name="workspace_id" value={otherId} onChange={(e) => setOtherId(e.target.value)} required />}
          <ErrorAlert error={error} title="Could not sign in" />
          {retryAfter !== null && <p className="hint">Try again in {retryAfter} seconds.</p>}
          <button type="submit" className="button-primary" disabled={busy}>
            Sign in
          </button>
        </form>
      ) : (
        <section aria-labelledby="second-factor">
          <h2 id="second-factor">Second factor</h2>
          <p>This account has a second factor. The sign-in ticket lasts five minutes.</p>
          {mfa.factors.includes("otp") && (
            <form
              aria-label="Sign in with a code"
              onSubmit={(e) => {
                e.preventDefault();
                void code(new FormData(e.currentTarget));
              }}
            >
              <TextField label="Code from your authenticator app, or a recovery code" name="code" autoComplete="one-time-code" inputMode="text" required autoFocus />
              <button type="submit" className="button-primary" disabled={busy}>
                Verify
              </button>
            </form>
          )}
          {mfa.factors.includes("passkey") && (
            <p>
              <button type="button" className={mfa.factors.includes("otp") ? "" : "button-primary"} onClick={() => void passkey()} disabled={busy}>
                Use a passkey
              </button>
            </p>
          )}
          <ErrorAlert error={error} title="Could not sign in" />
          <button type="button" className="button-quiet" onClick={() => (setMfa(null), setError(null))}>
            Start again
          </button>
        </section>
      )}
      {!mfa && otherSignInMethods.length > 0 && (
        <section aria-label="Other ways to sign in" className="other-methods">
          {otherSignInMethods.map(({ id, Component }) => (
            <Component key={id} workspaceId={workspaceId} onSignedIn={(a) => void run(() => finish(a))} />
          ))}
        </section>
      )}
    </main>
  );
}
