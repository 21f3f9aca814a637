// "Continue with <provider>" on the cockpit's sign-in (docs/federation.md "Admin SSO"): the
// identity providers the chosen workspace offers to administrators, from the public listing
// GET /svc/hmgr/admin-providers?workspace_id= (names only, keyed by workspace, never by email).
// Each is a link to GET /svc/hmgr/login?...&for=admin; after the provider, the server sends the
// browser back to /cockpit/?sso_ticket=<one-time ticket>, which this component trades at
// POST /svc/uflow/auth/sso for the admin token (the same answer as the password login).
import { useEffect, useRef, useState } from "react";
import { useSearchParams } from "react-router";
import { useQuery } from "@tanstack/react-query";
import { rest } from "../../api/rest";
import type { TokenAnswer } from "../../app/session";
import { ErrorAlert } from "../../components/ErrorAlert";
import type { SignInMethodProps } from "./methods";

interface Offered {
  items: { id: string; name: string }[];
}

/** The ticket the server appended, on this page or (after the redirect to sign-in) inside `next`. */
export function ssoTicketOf(params: URLSearchParams): string | null {
  const direct = params.get("sso_ticket");
  if (direct) return direct;
  const next = params.get("next");
  if (!next) return null;
  const q = next.indexOf("?");
  return q < 0 ? null : new URLSearchParams(next.slice(q + 1)).get("sso_ticket");
}

/** Tickets already sent: each is single-use, so a second render must not spend it again. */
const spent = new Set<string>();

export function ContinueWith({ workspaceId, onSignedIn }: SignInMethodProps) {
  const [params] = useSearchParams();
  const ticket = ssoTicketOf(params);
  const [error, setError] = useState<unknown>(null);
  const [redeeming, setRedeeming] = useState(false);
  const done = useRef(onSignedIn);
  done.current = onSignedIn;
  useEffect(() => {
    if (!ticket || spent.has(ticket)) return;
    spent.add(ticket);
    setRedeeming(true);
    rest<TokenAnswer>("POST", "/svc/uflow/auth/sso", { body: { ticket } })
      .then((answer) => done.current(answer))
      .catch((e) => setError(e))
      .finally(() => setRedeeming(false));
  }, [ticket]);
  const offered = useQuery({
    queryKey: ["signin-providers", workspaceId],
    queryFn: ({ signal }) => rest<Offered>("GET", `/svc/hmgr/admin-providers?${new URLSearchParams({ workspace_id: workspaceId! })}`, { signal }),
    enabled: !!workspaceId && /^[0-9a-f-]{36}$/i.test(workspaceId),
  });
  return (
    <div aria-live="polite">
      {redeeming && <p role="status">Signing you in with your identity provider…</p>}
      <ErrorAlert error={error} title="Could not sign in with the identity provider" />
      <ErrorAlert error={offered.error} title="Could not list the workspace's identity providers" />
      {offered.data && offered.data.items.length > 0 && (
        <ul className="continue-with">
          {offered.data.items.map((p) => (
            <li key={p.id}>
              <a className="button" href={`/svc/hmgr/login?${new URLSearchParams({ provider: p.id, workspace_id: workspaceId!, for: "admin" })}`}>
                Continue with {p.name}
              </a>
            </li>
          ))}
        </ul>
      )}
      {!workspaceId && <p className="hint">Signing in with your organization&apos;s identity provider? Choose the workspace above.</p>}
    </div>
  );
}
