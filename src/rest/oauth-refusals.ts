// Refusals of the OAuth endpoints as audit-trail counts (docs/decisions/0038-audit-trail.md): the
// one error handler of those endpoints tells this function (rest/oauth-errors.ts), so no throw site
// has to. Nothing is written per request: SecurityCounters aggregates per client, grant, reason and
// writes one event per key and flush. A failed client authentication (invalid_client) is its own
// action; every other refusal at the token or revocation endpoint is `token.refused`, with the OAuth
// error code and its internal reason (never sent to the client, never a secret).
import type { Request } from "express";
import type { OAuthError } from "../modules/oauth";
import { AUDIT_ACTIONS, type SecurityCounters } from "../modules/audit";
import { normaliseAddress } from "../shared/client-address";
import { basicCredentialsOf } from "./basic-auth";
import type { OAuthRefusalSink } from "./oauth-errors";

const text = (v: unknown) => (typeof v === "string" ? v : undefined);

export function countOAuthRefusals(counters: SecurityCounters): OAuthRefusalSink {
  return (req: Request, e: OAuthError) => {
    const address = normaliseAddress(req.ip);
    const reason = `${e.error}: ${e.reason ?? e.description}`;
    const basic = basicCredentialsOf(req);
    const form = (req.body ?? {}) as Record<string, unknown>;
    switch (req.path) {
      case "/oauth/introspect":
        if (e.error === "invalid_client") counters.count({ action: AUDIT_ACTIONS.resourceServerAuthenticationFailed, outcome: "failure", resourceServerId: basic?.id ?? null, reason, address });
        return;
      case "/oauth/token":
      case "/oauth/revoke": {
        const action = e.error === "invalid_client" ? AUDIT_ACTIONS.clientAuthenticationFailed : AUDIT_ACTIONS.tokenRefused;
        const grantType = req.path === "/oauth/token" ? text(form.grant_type) : "revocation";
        counters.count({ action, outcome: "failure", clientId: basic?.id ?? text(form.client_id) ?? null, grantType, reason, address });
        return;
      }
    }
  };
}
