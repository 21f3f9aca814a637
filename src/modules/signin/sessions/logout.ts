// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0) at the end_session_endpoint, and
// signing out of this browser. The browser is sent back only to a post_logout_redirect_uri the
// client registered (exact match; the client named by client_id or by the id_token_hint's aud),
// with `state`. The session ends at once when the id_token_hint names it (its `sid`): the RP proves
// it knows this very session. Otherwise the person confirms on a page first, so a cross-site link
// cannot sign them out; without a session there is nothing to end and the answer is the same
// redirect (or the signed-out page).
import { errorPage, logoutPage, signedOutPage } from "../pages";
import { withParams } from "../redirect-uri";
import type { TicketSealer } from "../tickets";
import type { BrowserSessions } from "./browser-sessions";
import type { IdTokenHint, SessionCookie } from "../signin-service";

const LOGOUT_TICKET_TTL_S = 300;

export interface LogoutRequest {
  id_token_hint?: string;
  client_id?: string;
  post_logout_redirect_uri?: string;
  state?: string;
}

export type LogoutStep = ({ kind: "page"; status: number; html: string } | { kind: "redirect"; location: string }) & { cookie?: SessionCookie; endedSessionId?: string };

interface LogoutTicket {
  s: string; // the session to end
  to?: string; // where to send the browser afterwards (already validated)
}

export class LogoutService {
  constructor(
    private readonly sessions: BrowserSessions,
    private readonly tickets: TicketSealer,
    private readonly readIdTokenHint: (token: string) => Promise<IdTokenHint | null>,
    private readonly postLogoutRedirectUris: (clientId: string) => Promise<readonly string[] | null>,
    issuer: string,
  ) {
    this.confirmAction = `${new URL(issuer).pathname.replace(/\/+$/, "")}/oauth/logout/confirm`;
  }

  private readonly confirmAction: string;

  /** GET or POST /oauth/logout */
  async request(req: LogoutRequest, cookie: string | undefined): Promise<LogoutStep> {
    const hint = req.id_token_hint !== undefined ? await this.readIdTokenHint(req.id_token_hint) : undefined;
    if (hint === null) return bad("The id_token_hint is not an ID token of this server.");
    if (hint && req.client_id !== undefined && req.client_id !== hint.aud) return bad("client_id differs from the id_token_hint's audience.");
    const clientId = req.client_id ?? hint?.aud;
    let to: string | undefined;
    if (req.post_logout_redirect_uri !== undefined) {
      if (clientId === undefined) return bad("post_logout_redirect_uri needs client_id or id_token_hint.");
      const registered = await this.postLogoutRedirectUris(clientId);
      if (!registered || !registered.includes(req.post_logout_redirect_uri)) return bad("The post_logout_redirect_uri is not registered for this client.");
      to = withParams(req.post_logout_redirect_uri, { state: req.state });
    }
    const session = await this.sessions.find(cookie);
    if (!session) return done(to, undefined);
    if (hint && hint.sid === session.id && hint.sub === session.userId) {
      await this.sessions.endById(session.id);
      return done(to, session.id);
    }
    const ticket = this.tickets.seal("logout", { s: session.id, to } satisfies LogoutTicket, LOGOUT_TICKET_TTL_S);
    return { kind: "page", status: 200, html: logoutPage({ ticket, action: this.confirmAction }) };
  }

  /** POST /oauth/logout/confirm */
  async confirm(ticket: string | undefined, decision: string | undefined, cookie: string | undefined): Promise<LogoutStep> {
    const t = this.tickets.open<LogoutTicket>("logout", ticket);
    if (!t) return bad("This page has expired.");
    if (decision !== "logout") return t.to ? { kind: "redirect", location: t.to } : { kind: "page", status: 200, html: signedOutPage().replace("You are signed out", "You are still signed in") };
    const session = await this.sessions.find(cookie);
    if (session && session.id === t.s) await this.sessions.endById(session.id);
    return done(t.to, session?.id === t.s ? t.s : undefined);
  }
}

function bad(message: string): LogoutStep {
  return { kind: "page", status: 400, html: errorPage(message) };
}

function done(to: string | undefined, ended: string | undefined): LogoutStep {
  const cookie: SessionCookie = { clear: true };
  return to ? { kind: "redirect", location: to, cookie, endedSessionId: ended } : { kind: "page", status: 200, html: signedOutPage(), cookie, endedSessionId: ended };
}
