// End-user sign-in for the authorization code grant and OpenID Connect (docs/sign-in.md,
// docs/openid-provider.md): the authorize request is validated, the browser's session is judged by
// the prompt policy (sessions/prompt-policy.ts), and only what the policy asks for is shown: the
// sign-in page (password or passkey), the second-factor step, the consent page. Then the client
// gets a single-use code. The state between pages travels in MAC'd, short-lived tickets; the
// browser session is a cookie whose hash is a row (sessions/browser-sessions.ts), started (and
// rotated) by every completed sign-in. A consent ticket carries a random nonce that the code it
// mints records (unique in the database), so a consent page posted twice mints one code only.
import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/server";
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
import type { Clock } from "../../shared/clock";
import { consentPage, errorPage, loginPage, secondFactorPage, type ClientDisplay, type FormActions, type ProviderChoice } from "./pages";
import { withParams } from "./redirect-uri";
import type { TicketSealer } from "./tickets";
import type { UsedLoginTickets } from "./used-login-tickets";
import type { BrowserSession, BrowserSessions } from "./sessions/browser-sessions";
import type { RememberedConsents } from "./sessions/remembered-consents";
import { firstPrompt, type PromptDecision, type PromptName } from "./sessions/prompt-policy";
import type { TotpService } from "./mfa/totp-service";
import type { PasskeyService } from "./mfa/passkey-service";

const LOGIN_TICKET_TTL_S = 600;
const CONSENT_TICKET_TTL_S = 300;
const SECOND_FACTOR_TICKET_TTL_S = 300;
const RESUME_TICKET_TTL_S = 120;

/** What the consent page says of OpenID Connect's own scopes. */
const OIDC_SCOPE_TEXT: Record<string, { name: string; description: string }> = {
  openid: { name: "Your identity", description: "an ID token saying who you are and how you signed in" },
  profile: { name: "Your profile", description: "your user name" },
  email: { name: "Your email address", description: "the email address of your account" },
};

export interface SignInPorts extends AuthorizePorts {
  /** Password check of an account of the workspace; null when the email/password pair is wrong (no hint which); a throttled account throws too_many_requests. */
  verifyUser(workspaceId: string, email: string, password: string, source: { address: string }): Promise<{ id: string; email: string } | null>;
  /** The scopes the user holds now on the server (the one scope resolver), or null when they may hold nothing in the workspace. */
  userScopes(tenantId: string, resourceServerId: string, userId: string): Promise<ReadonlySet<string> | null>;
  /** Records a dcr/cimd client's authorization for the server (clients' ConnectionWriter); false when the connection is revoked. */
  connect(input: { clientId: string; resourceServerId: string; tenantId: string; scopes: readonly string[]; userId: string }): Promise<boolean>;
  /** What the consent page names: the server, its workspace, and each scope's name and description. */
  describe(tenantId: string, resourceServerId: string, scopes: readonly string[]): Promise<ConsentContext>;
  /** A user's email (tenancy), null when unknown. */
  userEmail(tenantId: string, userId: string): Promise<string | null>;
  /** An ID token this server issued (expired or not): who, for which client, in which session; null otherwise. */
  readIdTokenHint(token: string): Promise<IdTokenHint | null>;
  /** The workspace's upstream identity providers for the sign-in page of this ticket (optional: none without it). */
  signInOptions?(tenantId: string, ticket: string): Promise<{ providers: ProviderChoice[]; discoverAction?: string; passwordEnabled: boolean }>;
}

export interface IdTokenHint {
  sub: string;
  aud: string;
  sid?: string;
}

export interface ConsentContext {
  serverName: string;
  workspaceName: string;
  scopes: Array<{ key: string; name: string; description: string | null }>;
}

/** A sign-in that happened (or failed) in a step: the audit trail records it with its factors. */
export interface SignInEvent {
  outcome: "success" | "failure";
  tenantId: string;
  userId?: string;
  /** The factor ids used (factors/index.ts); on failure, the one that failed. */
  factors: string[];
  sessionId?: string;
}

/** How the HTTP adapter sets the session cookie. */
export type SessionCookie = { value: string; maxAgeSeconds: number } | { clear: true };

interface StepExtras {
  cookie?: SessionCookie;
  /** Why the policy asked for a prompt (its stable reason), for the log and the decision trace. */
  decision?: PromptDecision;
  event?: SignInEvent;
}

/** What the HTTP adapter does next. */
export type SignInStep = (
  | { kind: "page"; status: number; html: string; retryAfter?: number }
  | { kind: "redirect"; location: string }
  | { kind: "json"; status: number; body: Record<string, unknown> }
) &
  StepExtras;

interface ClientInfo {
  n: string; // client name, for the pages
  m: string; // registration mode (dcr/cimd names are self-asserted: shown as unverified)
}
interface LoginTicket extends ClientInfo {
  r: ValidatedAuthorization;
  a: string; // nonce: the one password attempt this ticket allows records it
}
interface SecondFactorTicket extends ClientInfo {
  r: ValidatedAuthorization;
  u: string; // user id
  e: string; // user email
  f: string[]; // factors used so far
  a: string; // nonce: the one code attempt this ticket allows records it
}
interface ResumeTicket extends ClientInfo {
  r: ValidatedAuthorization;
  s: string; // the session just started
}
interface ConsentTicket extends ClientInfo {
  r: ValidatedAuthorization;
  u: string; // user id
  e: string; // user email
  s: string; // session id
  j: string; // nonce: the one code this ticket may mint records it
}

type Expiring<T> = T & { exp: number };

/**
 * The pages' form targets, absolute from the issuer's path: a relative action would resolve
 * against the page's own URL (the consent page is served at /oauth/authorize/login), and the
 * issuer may carry a path prefix (https://host/auth) that a proxy strips before Toolgate.
 */
export function formActions(issuer: string): FormActions {
  const base = new URL(issuer).pathname.replace(/\/+$/, "");
  return {
    login: `${base}/oauth/authorize/login`,
    consent: `${base}/oauth/authorize/consent`,
    secondFactor: `${base}/oauth/authorize/second-factor`,
    passkeyScript: `${base}/oauth/authorize/passkey.js`,
    passkeyBegin: `${base}/svc/webauthn/login/begin`,
    passkeyFinish: `${base}/svc/webauthn/login/finish`,
    logout: `${base}/oauth/logout/confirm`,
  };
}

export interface SignInParts {
  tickets: TicketSealer;
  codes: AuthorizationCodes;
  usedLoginTickets: UsedLoginTickets;
  firstTimeGrant: FirstTimeGrant;
  sessions: BrowserSessions;
  consents: RememberedConsents;
  totp: TotpService;
  passkeys: PasskeyService;
}

export class SignInService {
  private readonly actions: FormActions;
  private readonly tickets: TicketSealer;
  private readonly codes: AuthorizationCodes;

  constructor(
    private readonly ports: SignInPorts,
    private readonly parts: SignInParts,
    /** RFC 9207: `iss` in every authorization response, equal to the metadata issuer. */
    private readonly issuer: string,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
  ) {
    this.actions = formActions(issuer);
    this.tickets = parts.tickets;
    this.codes = parts.codes;
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

  private static expired(what: string): SignInStep {
    return { kind: "page", status: 400, html: errorPage(`This ${what} has expired. Start again from the application.`) };
  }

  /** GET /oauth/authorize */
  async start(query: AuthorizeQuery, source: { address: string } | undefined, cookie?: string): Promise<SignInStep> {
    const outcome = await validateAuthorizationRequest(query, this.ports, source?.address);
    if (outcome.kind === "page_error") {
      if (outcome.retryAfter !== undefined) return { kind: "page", status: 429, html: errorPage(outcome.message), retryAfter: outcome.retryAfter };
      return { kind: "page", status: 400, html: errorPage(outcome.message) };
    }
    if (outcome.kind === "redirect_error") {
      return this.redirect(outcome.redirectUri, { error: outcome.error, error_description: outcome.description, state: outcome.state });
    }
    const r = outcome.request;
    const client = { n: outcome.client.clientName, m: outcome.client.registrationMode };
    const session = await this.sessionFor(cookie, r.tenantId);
    const sessionEmail = session ? ((await this.ports.userEmail(session.tenantId, session.userId)) ?? undefined) : undefined;
    const idTokenHintSub = r.idTokenHint !== undefined ? ((await this.ports.readIdTokenHint(r.idTokenHint))?.sub ?? null) : undefined;
    if (r.idTokenHint !== undefined && idTokenHintSub === null) return this.errorRedirect(r, "invalid_request", "id_token_hint is not a valid ID token of this server");
    const decision = firstPrompt(
      {
        now: this.clock.now(),
        session,
        sessionEmail,
        request: { prompt: new Set(r.prompt), maxAge: r.maxAge, loginHint: r.loginHint, idTokenHintSub: idTokenHintSub ?? undefined },
        secondFactorEnrolled: session ? (await this.secondFactors(session.tenantId, session.userId)).length > 0 : false,
        consentCovered: true,
      },
      ["login", "second_factor"],
    );
    if (decision) {
      if (r.prompt.includes("none")) return { ...this.errorRedirect(r, decision.error, decision.reason), decision };
      if (decision.prompt === "second_factor") return { ...(await this.secondFactorStep(r, client, session!.userId, sessionEmail!, session!.factors)), decision };
      return { ...(await this.loginStep(r, client, undefined, r.loginHint)), decision };
    }
    return this.proceed(r, client, session!, sessionEmail!);
  }

  /** The browser's live session, when it belongs to this workspace (users are private to one). */
  private async sessionFor(cookie: string | undefined, tenantId: string): Promise<BrowserSession | null> {
    const session = await this.parts.sessions.find(cookie);
    return session && session.tenantId === tenantId ? session : null;
  }

  private async secondFactors(tenantId: string, userId: string): Promise<Array<"otp" | "passkey">> {
    const person = { tenantId, userId };
    const [otp, passkey] = await Promise.all([this.parts.totp.enrolled(person), this.parts.passkeys.has(person)]);
    return [...(otp ? (["otp"] as const) : []), ...(passkey ? (["passkey"] as const) : [])];
  }

  private async loginStep(r: ValidatedAuthorization, client: ClientInfo, error?: string, email?: string): Promise<SignInStep> {
    const ticket = this.tickets.seal("authorize", { r, ...client, a: this.ids.token(16) } satisfies LoginTicket, LOGIN_TICKET_TTL_S);
    // The workspace's upstream identity providers offered to end users (identity-providers module).
    const federation = this.ports.signInOptions ? await this.ports.signInOptions(r.tenantId, ticket) : undefined;
    return {
      kind: "page",
      status: error ? 401 : 200,
      html: loginPage({
        ticket,
        client: this.display(r, client.n, client.m),
        actions: this.actions,
        error,
        email,
        providers: federation?.providers,
        discoverAction: federation?.discoverAction,
        password: federation?.passwordEnabled ?? true,
      }),
    };
  }

  /**
   * The pending authorization a sign-in page's ticket carries (the login proxy starts an upstream
   * sign-in for it): its workspace, server and login_hint; null when the ticket is bad or expired.
   */
  pendingAuthorization(ticket: string | undefined): { tenantId: string; resourceServerId: string; loginHint?: string } | null {
    const t = this.tickets.open<LoginTicket>("authorize", ticket);
    return t ? { tenantId: t.r.tenantId, resourceServerId: t.r.resourceServerId, loginHint: t.r.loginHint } : null;
  }

  /** Records a one-time value of another sign-in step (an upstream flow's state); false when it was recorded before. */
  consumeOnce(value: string, expiresAt: Date): Promise<boolean> {
    return this.parts.usedLoginTickets.consume(value, expiresAt);
  }

  /**
   * An upstream identity provider signed the person in (the login proxy checked everything): the
   * same new browser session as a password sign-in, with the factor it names, then the
   * authorization of the ticket goes on (consent as usual).
   */
  async federatedSignIn(ticket: string, user: { id: string; email: string }, factors: string[], cookie: string | undefined): Promise<SignInStep> {
    const t = this.tickets.open<Expiring<LoginTicket>>("authorize", ticket);
    if (!t) return SignInService.expired("sign-in page");
    return this.signedIn(t.r, t, user, factors, cookie);
  }

  private async secondFactorStep(r: ValidatedAuthorization, client: ClientInfo, userId: string, email: string, factors: string[], error?: string): Promise<SignInStep> {
    const available = await this.secondFactors(r.tenantId, userId);
    const ticket = this.tickets.seal("second_factor", { r, ...client, u: userId, e: email, f: factors, a: this.ids.token(16) } satisfies SecondFactorTicket, SECOND_FACTOR_TICKET_TTL_S);
    return {
      kind: "page",
      status: error ? 401 : 200,
      html: secondFactorPage({ ticket, actions: this.actions, email, otp: available.includes("otp"), passkey: available.includes("passkey"), error }),
    };
  }

  /** POST /oauth/authorize/login */
  async login(ticket: string | undefined, email: string, password: string, source: { address: string }, cookie?: string): Promise<SignInStep> {
    const t = this.tickets.open<Expiring<LoginTicket>>("authorize", ticket);
    if (!t || typeof t.a !== "string") return SignInService.expired("sign-in page");
    // The workspace turned the end users' password form off: a hand-made post is refused too.
    if (this.ports.signInOptions && !(await this.ports.signInOptions(t.r.tenantId, ticket!)).passwordEnabled) {
      return { kind: "page", status: 403, html: errorPage("This workspace signs people in through its identity provider, not with a password.") };
    }
    // One password attempt per page: a wrong password is answered with a new page (a new ticket).
    if (!(await this.parts.usedLoginTickets.consume(t.a, new Date(t.exp * 1000)))) {
      return { kind: "page", status: 400, html: errorPage("This sign-in page has already been used. Start again from the application.") };
    }
    // A throttled account gets the same page as a wrong password (no hint for a guesser).
    const user = await this.ports.verifyUser(t.r.tenantId, email, password, source).catch((e) => (e instanceof DomainError && e.code === "too_many_requests" ? null : Promise.reject(e)));
    if (!user) return { ...(await this.loginStep(t.r, t, "Invalid email or password.", email)), event: { outcome: "failure", tenantId: t.r.tenantId, factors: ["pwd"] } };
    // An enrolled second factor is asked for before the session starts.
    if ((await this.secondFactors(t.r.tenantId, user.id)).length > 0) return this.secondFactorStep(t.r, t, user.id, user.email, ["pwd"]);
    return this.signedIn(t.r, t, { id: user.id, email: user.email }, ["pwd"], cookie);
  }

  /** POST /oauth/authorize/second-factor: an authenticator code or a recovery code. */
  async secondFactor(ticket: string | undefined, code: string, source: { address: string }, cookie?: string): Promise<SignInStep> {
    const t = this.tickets.open<Expiring<SecondFactorTicket>>("second_factor", ticket);
    if (!t || typeof t.a !== "string") return SignInService.expired("page");
    if (!(await this.parts.usedLoginTickets.consume(t.a, new Date(t.exp * 1000)))) {
      return { kind: "page", status: 400, html: errorPage("This page has already been used. Start again from the application.") };
    }
    const person = { tenantId: t.r.tenantId, userId: t.u };
    const factor = await this.parts.totp.verify(person, code, source).catch((e) => (e instanceof DomainError && e.code === "too_many_requests" ? null : Promise.reject(e)));
    if (!factor) {
      const again = await this.secondFactorStep(t.r, t, t.u, t.e, t.f, "That code is not valid (or was already used).");
      return { ...again, event: { outcome: "failure", tenantId: t.r.tenantId, userId: t.u, factors: ["otp"] } };
    }
    return this.signedIn(t.r, t, { id: t.u, email: t.e }, [...t.f, factor], cookie);
  }

  /**
   * POST /svc/webauthn/login/begin with a sign-in page's ticket: options for any discoverable
   * passkey of the workspace (username-less), or, on the second-factor page, the user's own.
   */
  async passkeyOptions(ticket: string | undefined): Promise<PublicKeyCredentialRequestOptionsJSON | null> {
    const login = this.tickets.open<LoginTicket>("authorize", ticket);
    if (login) return this.parts.passkeys.authenticationOptions(login.r.tenantId);
    const second = this.tickets.open<SecondFactorTicket>("second_factor", ticket);
    if (second) return this.parts.passkeys.authenticationOptions(second.r.tenantId, second.u);
    return null;
  }

  /**
   * POST /svc/webauthn/login/finish with a sign-in page's ticket: the passkey signs the person in
   * (a passkey with user verification is multi-factor on its own) and the answer says where the
   * page goes next (the resume URL, which continues the authorization in this session).
   */
  async passkeySignIn(ticket: string | undefined, response: AuthenticationResponseJSON, cookie?: string): Promise<SignInStep | null> {
    const login = this.tickets.open<LoginTicket>("authorize", ticket);
    const second = login ? null : this.tickets.open<SecondFactorTicket>("second_factor", ticket);
    const t = login ?? second;
    if (!t) return null;
    let person;
    try {
      person = await this.parts.passkeys.authenticate(t.r.tenantId, response, second?.u);
    } catch (e) {
      if (e instanceof DomainError) Object.assign(e, { event: { outcome: "failure", tenantId: t.r.tenantId, userId: second?.u, factors: ["passkey"] } satisfies SignInEvent });
      throw e;
    }
    const factors = second ? [...second.f, "passkey"] : ["passkey"];
    const started = await this.parts.sessions.start({ tenantId: person.tenantId, userId: person.userId, factors, previousCookie: cookie });
    const resume = this.tickets.seal("resume", { r: t.r, n: t.n, m: t.m, s: started.session.id } satisfies ResumeTicket, RESUME_TICKET_TTL_S);
    const base = new URL(this.issuer).pathname.replace(/\/+$/, "");
    return {
      kind: "json",
      status: 200,
      body: { redirect: `${base}/oauth/authorize/resume?${new URLSearchParams({ ticket: resume })}` },
      cookie: { value: started.cookie, maxAgeSeconds: started.maxAgeSeconds },
      event: { outcome: "success", tenantId: person.tenantId, userId: person.userId, factors, sessionId: started.session.id },
    };
  }

  /** GET /oauth/authorize/resume: the authorization goes on in the session a passkey just started. */
  async resume(ticket: string | undefined, cookie?: string): Promise<SignInStep> {
    const t = this.tickets.open<ResumeTicket>("resume", ticket);
    if (!t) return SignInService.expired("sign-in");
    const session = await this.sessionFor(cookie, t.r.tenantId);
    if (!session || session.id !== t.s) return SignInService.expired("sign-in");
    const email = await this.ports.userEmail(session.tenantId, session.userId);
    if (!email) return this.errorRedirect(t.r, "access_denied", "the user may not access this workspace");
    return this.proceed(t.r, t, session, email);
  }

  /** A completed sign-in: a new session (the browser's former one ended), then the authorization goes on. */
  private async signedIn(r: ValidatedAuthorization, client: ClientInfo, user: { id: string; email: string }, factors: string[], cookie: string | undefined): Promise<SignInStep> {
    const started = await this.parts.sessions.start({ tenantId: r.tenantId, userId: user.id, factors, previousCookie: cookie });
    const next = await this.proceed(r, client, started.session, user.email);
    return {
      ...next,
      cookie: { value: started.cookie, maxAgeSeconds: started.maxAgeSeconds },
      event: { outcome: "success", tenantId: r.tenantId, userId: user.id, factors, sessionId: started.session.id },
    };
  }

  /** Signed in: the consent page when the policy asks for it, else the code at once. */
  private async proceed(r: ValidatedAuthorization, client: ClientInfo, session: BrowserSession, email: string): Promise<SignInStep> {
    const held = await this.ports.userScopes(r.tenantId, r.resourceServerId, session.userId);
    if (!held) return this.errorRedirect(r, "access_denied", "the user may not access this workspace");
    // The page lists what the user would grant: for "all of the server" the scopes they hold there.
    const resourceShown = r.allHeld ? [...held].sort() : r.scopes;
    const shown = [...resourceShown, ...(r.oidc?.scopes ?? [])];
    const remembered = await this.parts.consents.allowed(session.userId, r.clientId, r.resourceServerId);
    const decision = firstPrompt(
      { now: this.clock.now(), session, request: { prompt: new Set(r.prompt) }, secondFactorEnrolled: false, consentCovered: !!remembered && shown.every((s) => remembered.has(s)) },
      ["consent"] satisfies PromptName[],
    );
    if (!decision) return this.finish(r, session);
    if (r.prompt.includes("none")) return { ...this.errorRedirect(r, decision.error, decision.reason), decision };
    const consent = this.tickets.seal("consent", { r, ...client, u: session.userId, e: email, s: session.id, j: this.ids.token(16) } satisfies ConsentTicket, CONSENT_TICKET_TTL_S);
    const context = await this.ports.describe(r.tenantId, r.resourceServerId, resourceShown);
    const oidcScopes = (r.oidc?.scopes ?? []).map((key) => ({ key, name: OIDC_SCOPE_TEXT[key]!.name, description: OIDC_SCOPE_TEXT[key]!.description }));
    return {
      kind: "page",
      status: 200,
      html: consentPage({
        ticket: consent,
        client: { ...this.display(r, client.n, client.m), scopes: shown },
        context: { ...context, scopes: [...context.scopes, ...oidcScopes] },
        actions: this.actions,
        userEmail: email,
      }),
      decision,
    };
  }

  /** POST /oauth/authorize/consent */
  async consent(ticket: string | undefined, decision: string | undefined): Promise<SignInStep> {
    const t = this.tickets.open<ConsentTicket>("consent", ticket);
    if (!t || typeof t.j !== "string") return SignInService.expired("consent page");
    if (decision !== "allow") return this.errorRedirect(t.r, "access_denied", "the user denied the request");
    // The session that showed the page must still be live (not signed out meanwhile).
    const session = await this.parts.sessions.findById(t.s);
    if (!session) return SignInService.expired("consent page");
    const held = await this.ports.userScopes(t.r.tenantId, t.r.resourceServerId, t.u);
    // Re-check: the user may have been suspended while the consent page was open.
    if (!held) return this.errorRedirect(t.r, "access_denied", "the user may not access this workspace");
    const shown = [...(t.r.allHeld ? [...held] : t.r.scopes), ...(t.r.oidc?.scopes ?? [])];
    await this.parts.consents.remember({ tenantId: t.r.tenantId, userId: t.u, clientId: t.r.clientId, resourceServerId: t.r.resourceServerId, scopes: shown });
    return this.finish(t.r, session, t.j);
  }

  /** The code: first-time grant, the scopes the user holds now, the connection of a dcr/cimd client. */
  private async finish(r: ValidatedAuthorization, session: BrowserSession, consentId = this.ids.token(16)): Promise<SignInStep> {
    await this.parts.firstTimeGrant.onSignIn(r.tenantId, r.resourceServerId, session.userId);
    // The code carries the requested scopes the user holds now (the first-time grant may have just
    // added some); introspection re-resolves later.
    const held = await this.ports.userScopes(r.tenantId, r.resourceServerId, session.userId);
    if (!held) return this.errorRedirect(r, "access_denied", "the user may not access this workspace");
    const granted = r.allHeld ? [...held].sort() : r.scopes.filter((s) => held.has(s));
    // A dcr/cimd client's first authorization for this server creates its connection (approved:
    // spec "Approval is automatic"); later ones stamp it. A connection revoked meanwhile refuses.
    if (r.viaConnection) {
      const connected = await this.ports.connect({ clientId: r.clientId, resourceServerId: r.resourceServerId, tenantId: r.tenantId, scopes: granted, userId: session.userId });
      if (!connected) return this.errorRedirect(r, "access_denied", "this client's access to the resource server was revoked");
    }
    const code = await this.codes.issue(
      {
        tenantId: r.tenantId,
        clientId: r.clientId,
        userId: session.userId,
        redirectUri: r.redirectUri,
        redirectUriSent: r.redirectUriSent,
        codeChallenge: r.codeChallenge,
        scope: [...granted, ...(r.oidc?.scopes ?? [])].join(" "),
        resource: r.resource,
        nonce: r.oidc?.nonce ?? null,
        sessionId: session.id,
        authTime: session.authTime,
        factors: session.factors,
      },
      consentId,
    );
    // The ticket already minted its code (the page was posted twice, or replayed).
    if (code === null) return { kind: "page", status: 400, html: errorPage("This consent page has already been used. Start again from the application.") };
    return this.redirect(r.redirectUri, { code, state: r.state });
  }
}
