// End-user sign-in for the authorization code grant: the authorize request is validated, the user
// signs in on a server-rendered page, approves on a consent page, and is sent back to the client
// with a single-use code. The state between pages travels in MAC'd, short-lived tickets (no
// server-side session, no cookie to steal). A consent ticket carries a random nonce that the code
// it mints records (unique in the database), so a consent page posted twice mints one code only.
import { AuthorizationCodes } from "./authorization-codes";
import {
  validateAuthorizationRequest,
  type AuthorizePorts,
  type AuthorizeQuery,
  type SignInClient,
  type ValidatedAuthorization,
} from "./authorization-request";
import { DomainError } from "../../shared/errors";
import type { FirstTimeGrant } from "./first-time-grant";
import type { IdGenerator } from "../../shared/ids";
import { consentPage, errorPage, loginPage, type ClientDisplay, type FormActions } from "./pages";
import { withParams } from "./redirect-uri";
import type { TicketSealer } from "./tickets";
import type { UsedLoginTickets } from "./used-login-tickets";

const LOGIN_TICKET_TTL_S = 600;
const CONSENT_TICKET_TTL_S = 300;

export interface SignInPorts extends AuthorizePorts {
  /** Password check of an account of the workspace; null when the email/password pair is wrong (no hint which); a throttled account throws too_many_requests. */
  verifyUser(workspaceId: string, email: string, password: string, source: { address: string }): Promise<{ id: string; email: string } | null>;
  /** The scopes the user holds now on the server (the one scope resolver), or null when they may hold nothing in the workspace. */
  userScopes(tenantId: string, resourceServerId: string, userId: string): Promise<ReadonlySet<string> | null>;
  /** Records a dcr/cimd client's authorization for the server (clients' ConnectionWriter); false when the connection is revoked. */
  connect(input: { clientId: string; resourceServerId: string; tenantId: string; scopes: readonly string[]; userId: string }): Promise<boolean>;
  /** What the consent page names: the server, its workspace, and each scope's name and description. */
  describe(tenantId: string, resourceServerId: string, scopes: readonly string[]): Promise<ConsentContext>;
}

export interface ConsentContext {
  serverName: string;
  workspaceName: string;
  scopes: Array<{ key: string; name: string; description: string | null }>;
}

/** What the HTTP adapter does next. */
export type SignInStep = { kind: "page"; status: number; html: string; retryAfter?: number } | { kind: "redirect"; location: string };

interface LoginTicket {
  r: ValidatedAuthorization;
  n: string; // client name, for the pages
  m: string; // registration mode (dcr/cimd names are self-asserted: shown as unverified)
  a: string; // nonce: the one password attempt this ticket allows records it
}
interface ConsentTicket {
  r: ValidatedAuthorization;
  n: string; // client name, for the pages
  m: string; // registration mode
  u: string; // user id
  e: string; // user email
  j: string; // nonce: the one code this ticket may mint records it
}

/**
 * The pages' form targets, absolute from the issuer's path: a relative action would resolve
 * against the page's own URL (the consent page is served at /oauth/authorize/login), and the
 * issuer may carry a path prefix (https://host/auth) that a proxy strips before Toolgate.
 */
export function formActions(issuer: string): FormActions {
  const base = new URL(issuer).pathname.replace(/\/+$/, "");
  return { login: `${base}/oauth/authorize/login`, consent: `${base}/oauth/authorize/consent` };
}

export class SignInService {
  private readonly actions: FormActions;

  constructor(
    private readonly ports: SignInPorts,
    private readonly tickets: TicketSealer,
    private readonly codes: AuthorizationCodes,
    private readonly usedLoginTickets: UsedLoginTickets,
    private readonly firstTimeGrant: FirstTimeGrant,
    /** RFC 9207: `iss` in every authorization response, equal to the metadata issuer. */
    private readonly issuer: string,
    private readonly ids: IdGenerator,
  ) {
    this.actions = formActions(issuer);
  }

  private display(r: ValidatedAuthorization, clientName: string, mode: string): ClientDisplay {
    return {
      clientName,
      // A name the client chose itself (RFC 7591 registration, CIMD document) proves nothing (CIMD §D8: show the host).
      clientNameVerified: mode === "prereg",
      clientId: r.clientId,
      metadataHost: mode === "cimd" ? new URL(r.clientId).host : undefined,
      redirectHost: new URL(r.redirectUri).host,
      resource: r.resource,
      scopes: r.scopes,
    };
  }

  private redirect(uri: string, params: Record<string, string | undefined>): SignInStep {
    return { kind: "redirect", location: withParams(uri, { ...params, iss: this.issuer }) };
  }

  private errorRedirect(r: Pick<ValidatedAuthorization, "redirectUri" | "state">, error: string, description: string): SignInStep {
    return this.redirect(r.redirectUri, { error, error_description: description, state: r.state });
  }

  /** GET /oauth/authorize */
  async start(query: AuthorizeQuery, source?: { address: string }): Promise<SignInStep> {
    const outcome = await validateAuthorizationRequest(query, this.ports, source?.address);
    if (outcome.kind === "page_error") {
      if (outcome.retryAfter !== undefined) return { kind: "page", status: 429, html: errorPage(outcome.message), retryAfter: outcome.retryAfter };
      return { kind: "page", status: 400, html: errorPage(outcome.message) };
    }
    if (outcome.kind === "redirect_error") {
      return this.redirect(outcome.redirectUri, { error: outcome.error, error_description: outcome.description, state: outcome.state });
    }
    return this.loginStep(outcome.request, outcome.client);
  }

  private loginStep(r: ValidatedAuthorization, client: Pick<SignInClient, "clientName" | "registrationMode">, error?: string, email?: string): SignInStep {
    const ticket = this.tickets.seal("authorize", { r, n: client.clientName, m: client.registrationMode, a: this.ids.token(16) } satisfies LoginTicket, LOGIN_TICKET_TTL_S);
    return {
      kind: "page",
      status: error ? 401 : 200,
      html: loginPage({ ticket, client: this.display(r, client.clientName, client.registrationMode), action: this.actions.login, error, email }),
    };
  }

  /** POST /oauth/authorize/login */
  async login(ticket: string | undefined, email: string, password: string, source: { address: string }): Promise<SignInStep> {
    const t = this.tickets.open<LoginTicket & { exp: number }>("authorize", ticket);
    if (!t || typeof t.a !== "string") return { kind: "page", status: 400, html: errorPage("This sign-in page has expired. Start again from the application.") };
    // One password attempt per page: a wrong password is answered with a new page (a new ticket).
    if (!(await this.usedLoginTickets.consume(t.a, new Date(t.exp * 1000)))) {
      return { kind: "page", status: 400, html: errorPage("This sign-in page has already been used. Start again from the application.") };
    }
    // A throttled account gets the same page as a wrong password (no hint for a guesser).
    const user = await this.ports.verifyUser(t.r.tenantId, email, password, source).catch((e) => (e instanceof DomainError && e.code === "too_many_requests" ? null : Promise.reject(e)));
    if (!user) return this.loginStep(t.r, { clientName: t.n, registrationMode: t.m }, "Invalid email or password.", email);
    const held = await this.ports.userScopes(t.r.tenantId, t.r.resourceServerId, user.id);
    if (!held) return this.errorRedirect(t.r, "access_denied", "the user may not access this workspace");
    const consent = this.tickets.seal("consent", { r: t.r, n: t.n, m: t.m, u: user.id, e: user.email, j: this.ids.token(16) } satisfies ConsentTicket, CONSENT_TICKET_TTL_S);
    // The page lists what the user would grant: for "all of the server" the scopes they hold there.
    const shown = t.r.allHeld ? [...held].sort() : t.r.scopes;
    const context = await this.ports.describe(t.r.tenantId, t.r.resourceServerId, shown);
    return {
      kind: "page",
      status: 200,
      html: consentPage({ ticket: consent, client: { ...this.display(t.r, t.n, t.m), scopes: shown }, context, action: this.actions.consent, userEmail: user.email }),
    };
  }

  /** POST /oauth/authorize/consent */
  async consent(ticket: string | undefined, decision: string | undefined): Promise<SignInStep> {
    const t = this.tickets.open<ConsentTicket>("consent", ticket);
    if (!t || typeof t.j !== "string") return { kind: "page", status: 400, html: errorPage("This consent page has expired. Start again from the application.") };
    if (decision !== "allow") return this.errorRedirect(t.r, "access_denied", "the user denied the request");
    // Re-check: the user may have been suspended while the consent page was open.
    if (!(await this.ports.userScopes(t.r.tenantId, t.r.resourceServerId, t.u))) return this.errorRedirect(t.r, "access_denied", "the user may not access this workspace");
    await this.firstTimeGrant.onSignIn(t.r.tenantId, t.r.resourceServerId, t.u);
    // The code carries the requested scopes the user holds now (the first-time grant may have just
    // added some); introspection re-resolves later.
    const held = (await this.ports.userScopes(t.r.tenantId, t.r.resourceServerId, t.u)) ?? new Set<string>();
    const granted = t.r.allHeld ? [...held].sort() : t.r.scopes.filter((s) => held.has(s));
    const scope = granted.join(" ");
    // A dcr/cimd client's first authorization for this server creates its connection (approved:
    // spec "Approval is automatic"); later ones stamp it. A connection revoked meanwhile refuses.
    if (t.r.viaConnection) {
      const connected = await this.ports.connect({ clientId: t.r.clientId, resourceServerId: t.r.resourceServerId, tenantId: t.r.tenantId, scopes: granted, userId: t.u });
      if (!connected) return this.errorRedirect(t.r, "access_denied", "this client's access to the resource server was revoked");
    }
    const code = await this.codes.issue(
      {
        tenantId: t.r.tenantId,
        clientId: t.r.clientId,
        userId: t.u,
        redirectUri: t.r.redirectUri,
        redirectUriSent: t.r.redirectUriSent,
        codeChallenge: t.r.codeChallenge,
        scope,
        resource: t.r.resource,
      },
      t.j,
    );
    // The ticket already minted its code (the page was posted twice, or replayed).
    if (code === null) return { kind: "page", status: 400, html: errorPage("This consent page has already been used. Start again from the application.") };
    return this.redirect(t.r.redirectUri, { code, state: t.r.state });
  }
}
