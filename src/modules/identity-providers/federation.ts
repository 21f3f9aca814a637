// The login proxy (docs/federation.md, decision 0041): GET /svc/hmgr/login starts the upstream
// authorization code flow, GET /svc/hmgr/callback finishes it.
// - start: the pending /oauth/authorize request travels as the sign-in page's ticket; the provider
//   must be an enabled one of that request's workspace, offered to end users (or found by the
//   email's domain: home-realm discovery). PKCE S256, `state` and `nonce` are fresh; they, the
//   verifier and the ticket ride in a MAC'd flow cookie (HttpOnly, SameSite=Lax, 10 minutes).
// - callback: the cookie must be present, intact and unexpired, `state` equal to its own and never
//   used before (recorded: single use across instances); then the code exchange and the ID token
//   check (id-tokens.ts). The account is resolved by the linking rules in ONE transaction with the
//   group sync and the audit event; any refusal rolls it back (nothing half-written) and ends on a
//   page that says why and offers to start again. Then the authorization goes on exactly as after
//   a password sign-in (same browser session, factor "fed").
import type { JWTPayload } from "jose";
import type { Db, Tx } from "../../storage";
import { recordAuditEvent } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import type { OutboundFetchOptions } from "../../shared/outbound/fetch-json";
import { AUDIT_ACTIONS } from "../audit";
import { noticePage, s256, type SignInStep, type TicketSealer } from "../signin";
import { exchangeCode, UpstreamKeySets, UpstreamRefusal, verifyIdToken } from "./id-tokens";
import type { IdentityProviderService, Provider } from "./provider-service";

export const FLOW_TTL_S = 600;
export const FEDERATED_FACTOR = "fed";

export type FlowCookie = { value: string; maxAgeSeconds: number } | { clear: true };
export type FederationStep = SignInStep & { flow?: FlowCookie };

/** Where the account standing comes from (tenancy) and where the sign-in goes on (signin), wired in app.ts. */
export interface FederationPorts {
  /** The pending authorization of a sign-in page's ticket: its workspace and server; null when the ticket is bad or expired. */
  pendingAuthorization(ticket: string | undefined): { tenantId: string; resourceServerId: string; loginHint?: string } | null;
  /** The authorization goes on for the signed-in user (a new browser session), as after a password. */
  continueAuthorization(ticket: string, user: { id: string; email: string }, factors: string[], sessionCookie: string | undefined): Promise<SignInStep>;
  /** Records a one-time value; false when it was recorded before (signin's used tickets). */
  consumeOnce(value: string, expiresAt: Date): Promise<boolean>;
  findUserByEmail(tx: Tx, tenantId: string, email: string): Promise<{ id: string; email: string } | null>;
  createUser(tx: Tx, tenantId: string, input: { email: string; username: string }): Promise<{ id: string; email: string }>;
  emailOf(tx: Tx, tenantId: string, userId: string): Promise<string | null>;
  /** active, or why the person may not sign in (suspended end user, membership not active or gone). */
  standing(tx: Tx, tenantId: string, userId: string): Promise<"active" | "suspended" | "removed">;
  /** rbac: the user's memberships of `managed` groups become exactly `desired`. */
  syncGroups(tx: Tx, tenantId: string, userId: string, managed: readonly string[], desired: readonly string[]): Promise<void>;
  /** rbac: a role binding for a new user on the server of the authorization. */
  grantRole(tx: Tx, g: { tenantId: string; roleId: string; userId: string; resourceServerId: string }): Promise<string>;
  /**
   * Admin SSO (tenancy): an admin JWT for the member, saying how they signed in; "not_admin" when
   * their role may not use the cockpit, "mfa_required" when the workspace requires a second factor
   * of admins and the provider did not say it used one.
   */
  adminToken(tenantId: string, userId: string, upstreamAmr: readonly string[]): Promise<AdminTokenAnswer | "not_admin" | "mfa_required">;
  /**
   * private_key_jwt (RFC 7523 §2.2): a client assertion signed with Toolgate's published signing key:
   * iss = sub = clientId, aud = `audience` (the provider's token endpoint), a fresh jti, a short exp.
   */
  clientAssertion(clientId: string, audience: string): Promise<string>;
  /** The same judgement as adminToken, without issuing a token. */
  adminStanding(tenantId: string, userId: string, upstreamAmr: readonly string[]): Promise<"ok" | "not_admin" | "mfa_required">;
}

export interface AdminTokenAnswer {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
}

/** Where admin SSO ends: the cockpit, with a one-time ticket it exchanges at POST /svc/uflow/auth/sso. */
export const ADMIN_SSO_TTL_S = 60;

interface Flow {
  p: string; // provider id
  t: string; // workspace
  s: string; // state
  n: string; // nonce
  v: string; // PKCE verifier
  k: string; // the sign-in page's ticket (the pending authorization); "" for admin SSO
  a?: 1; // admin SSO (the cockpit), not an end-user authorization
  exp: number;
}

interface AdminSsoTicket {
  u: string; // user
  t: string; // workspace
  j: string; // one-time nonce
  m: string[]; // the provider's amr
}

/** A refusal of the sign-in with the sentence the page shows. */
class Refused extends Error {
  constructor(
    readonly stage: string,
    message: string,
    readonly status = 403,
  ) {
    super(message);
  }
}

const UPSTREAM_ERRORS: Record<string, string> = {
  access_denied: "The identity provider did not allow the sign-in (access_denied).",
  login_required: "The identity provider needs you to sign in there first (login_required).",
  consent_required: "The identity provider needs your consent first (consent_required).",
  interaction_required: "The identity provider needs you to do something there first (interaction_required).",
};

export class FederationService {
  private readonly keys: UpstreamKeySets;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly providers: IdentityProviderService,
    private readonly sealer: TicketSealer,
    private readonly outbound: OutboundFetchOptions,
    private readonly ports: FederationPorts,
    /** The issuer's path prefix (links on pages are absolute from it). */
    private readonly basePath: string,
  ) {
    this.keys = new UpstreamKeySets(clock, outbound);
  }

  /** The start link of a provider for a sign-in page's ticket. */
  loginHref(providerId: string, ticket: string): string {
    return `${this.basePath}/svc/hmgr/login?${new URLSearchParams({ provider: providerId, ticket })}`;
  }

  private page(status: number, title: string, message: string, again?: string): FederationStep {
    return { kind: "page", status, html: noticePage(title, message, again ? { href: again, label: "Start again" } : undefined) };
  }

  /** GET /svc/hmgr/login?provider=<id>&ticket=<ticket>[&login_hint=<email>] */
  async start(input: { provider?: string; ticket?: string; loginHint?: string }): Promise<FederationStep> {
    const pending = this.ports.pendingAuthorization(input.ticket);
    if (!pending || !input.ticket) return this.page(400, "Sign-in expired", "This sign-in page has expired. Start again from the application.");
    let provider: Provider | null = null;
    if (input.provider) {
      provider = await this.providers.provider(pending.tenantId, input.provider);
      if (!provider || !provider.enabled || !provider.allowedFor.includes("end_users")) return this.page(400, "Unknown identity provider", "This identity provider is not offered for this sign-in.");
    } else {
      const domain = (input.loginHint ?? "").trim().toLowerCase().split("@")[1];
      if (domain) provider = (await this.providers.offered(pending.tenantId, "end_users")).find((p) => p.emailDomains.includes(domain)) ?? null;
      if (!provider) return this.page(404, "No single sign-on for this address", "No identity provider of this workspace signs in this email address. Go back and sign in with your password.");
    }
    const flow = { p: provider.id, t: pending.tenantId, s: this.ids.token(16), n: this.ids.token(16), v: this.ids.token(32), k: input.ticket };
    return this.redirectUpstream(provider, flow, input.loginHint?.trim() || pending.loginHint);
  }

  /** GET /svc/hmgr/login?provider=<id>&workspace_id=<ws>&for=admin: admin SSO into the cockpit. */
  async startAdmin(input: { provider?: string; workspaceId?: string; loginHint?: string }): Promise<FederationStep> {
    const provider = input.provider && input.workspaceId ? await this.providers.provider(input.workspaceId, input.provider) : null;
    if (!provider || !provider.enabled || !provider.allowedFor.includes("admins")) return this.page(400, "Unknown identity provider", "This identity provider is not offered for signing in to the cockpit.");
    const flow: Omit<Flow, "exp"> = { p: provider.id, t: provider.tenantId, s: this.ids.token(16), n: this.ids.token(16), v: this.ids.token(32), k: "", a: 1 };
    return this.redirectUpstream(provider, flow, input.loginHint);
  }

  /** POST /svc/uflow/auth/sso {ticket}: the cockpit exchanges admin SSO's one-time ticket for the admin JWT. */
  async redeemAdminTicket(ticket: string): Promise<AdminTokenAnswer | null> {
    const t = this.sealer.open<AdminSsoTicket & { exp: number }>("admin_sso", ticket);
    if (!t || typeof t.j !== "string" || typeof t.u !== "string") return null;
    if (!(await this.ports.consumeOnce(`fed-admin:${t.j}`, new Date(t.exp * 1000)))) return null;
    const answer = await this.ports.adminToken(t.t, t.u, t.m ?? []);
    return typeof answer === "string" ? null : answer;
  }

  private redirectUpstream(provider: Provider, flow: Omit<Flow, "exp">, loginHint: string | undefined): FederationStep {
    const url = new URL(provider.authorizationEndpoint);
    const params: Record<string, string> = {
      response_type: "code",
      client_id: provider.clientId,
      redirect_uri: this.providers.callbackUrl,
      scope: provider.scopes,
      state: flow.s,
      nonce: flow.n,
      code_challenge: s256(flow.v),
      code_challenge_method: "S256",
    };
    if (loginHint) params.login_hint = loginHint;
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return { kind: "redirect", location: url.href, flow: { value: this.sealer.seal("federation", flow, FLOW_TTL_S), maxAgeSeconds: FLOW_TTL_S } };
  }

  /** GET /svc/hmgr/callback?code|error&state */
  async callback(query: Record<string, string | undefined>, flowCookie: string | undefined, sessionCookie: string | undefined): Promise<FederationStep> {
    const clear: FlowCookie = { clear: true };
    const f = this.sealer.open<Flow>("federation", flowCookie);
    if (!f) return { ...this.page(400, "Sign-in expired", "This sign-in has expired or was started in another browser. Start again from the application."), flow: clear };
    const again = f.a ? `${this.basePath}/svc/hmgr/login?${new URLSearchParams({ provider: f.p, workspace_id: f.t, for: "admin" })}` : this.ports.pendingAuthorization(f.k) ? this.loginHref(f.p, f.k) : undefined;
    const refuse = (status: number, title: string, message: string, stage: string, userId?: string): Promise<FederationStep> =>
      this.failed(f, stage, userId).then(() => ({ ...this.page(status, title, message, again), flow: clear }));
    if (!query.state || query.state !== f.s) return refuse(400, "Sign-in not recognised", "The identity provider's answer does not belong to this sign-in (state mismatch).", "state");
    // Single use: a replayed callback (the same answer twice) finds its state taken.
    if (!(await this.ports.consumeOnce(`fed:${f.s}`, new Date(f.exp * 1000)))) return refuse(400, "Sign-in already used", "This answer of the identity provider was already used.", "replayed");
    if (query.error) {
      const known = UPSTREAM_ERRORS[query.error];
      return refuse(401, "Sign-in cancelled", known ?? "The identity provider could not sign you in.", `upstream_${query.error.slice(0, 40)}`);
    }
    if (!query.code) return refuse(400, "Sign-in not recognised", "The identity provider's answer has no code.", "no_code");
    const provider = await this.providers.byId(f.p);
    if (!provider || provider.tenantId !== f.t || !provider.enabled || !provider.allowedFor.includes(f.a ? "admins" : "end_users")) {
      return refuse(400, "Unknown identity provider", "This identity provider is no longer offered.", "provider_gone");
    }
    let claims: JWTPayload;
    try {
      const idToken = await exchangeCode(provider, provider.tokenEndpointAuthMethod === "private_key_jwt" ? { assertion: await this.ports.clientAssertion(provider.clientId, provider.tokenEndpoint) } : await this.providers.secretOf(provider.id), { code: query.code, redirectUri: this.providers.callbackUrl, verifier: f.v }, this.outbound);
      claims = await verifyIdToken(provider, idToken, f.n, this.keys, this.clock);
    } catch (e) {
      if (!(e instanceof UpstreamRefusal)) throw e;
      return refuse(502, "Sign-in failed", `Toolgate could not accept the identity provider's answer: ${e.message}.`, e.stage);
    }
    let user: { id: string; email: string };
    try {
      user = await this.linkAndSync(provider, claims, f);
    } catch (e) {
      if (!(e instanceof Refused)) throw e;
      return refuse(e.status, "Sign-in refused", e.message, e.stage);
    }
    if (f.a) {
      // Admin SSO: a role that may use the cockpit, and the workspace's MFA rule for admins holds.
      const upstreamAmr = Array.isArray(claims.amr) ? claims.amr.filter((a): a is string => typeof a === "string") : [];
      const check = await this.ports.adminStanding(f.t, user.id, upstreamAmr);
      if (check === "not_admin") return refuse(403, "Sign-in refused", "Your role in this workspace does not include the cockpit.", "not_admin", user.id);
      if (check === "mfa_required") {
        return refuse(403, "Sign-in refused", "This workspace requires a second factor for administrators, and the identity provider did not report one (amr mfa). Sign in with your password and second factor.", "mfa_required", user.id);
      }
      const ticket = this.sealer.seal("admin_sso", { u: user.id, t: f.t, j: this.ids.token(16), m: upstreamAmr.slice(0, 10) } satisfies AdminSsoTicket, ADMIN_SSO_TTL_S);
      return { kind: "redirect", location: `${this.basePath}/cockpit/?${new URLSearchParams({ sso_ticket: ticket })}`, flow: clear };
    }
    const next = await this.ports.continueAuthorization(f.k, user, [FEDERATED_FACTOR], sessionCookie);
    return { ...next, flow: clear };
  }

  /**
   * The linking rules (decision 0041) in one transaction with the group sync and the audit event:
   * 1. (provider, sub) linked before: that account.
   * 2. else an account of the workspace with the asserted email is linked only when the provider
   *    says email_verified: true AND the provider is configured to trust its emails;
   * 3. else a new account (jit_provisioning), unless one with that email exists (never taken over);
   * 4. a suspended end user or a member who is not active stays refused whatever the upstream says.
   */
  private async linkAndSync(provider: Provider, claims: JWTPayload, f: Flow): Promise<{ id: string; email: string }> {
    const sub = claims.sub!;
    const map = provider.claimMapping;
    const emailClaim = claims[map.email];
    const email = typeof emailClaim === "string" && emailClaim.includes("@") && emailClaim.length <= 254 ? emailClaim.trim().toLowerCase() : null;
    const nameClaim = claims[map.name];
    const groupsClaim = claims[map.groups];
    const upstreamGroups = new Set(Array.isArray(groupsClaim) ? groupsClaim.filter((g): g is string => typeof g === "string") : []);
    const amr = Array.isArray(claims.amr) ? claims.amr.filter((a): a is string => typeof a === "string").slice(0, 10) : null;
    const acr = typeof claims.acr === "string" ? claims.acr.slice(0, 200) : null;
    const pending = this.ports.pendingAuthorization(f.k);
    const now = this.clock.now();
    return this.db.$transaction(async (tx) => {
      const link = await tx.federatedIdentity.findUnique({ where: { providerId_subject: { providerId: provider.id, subject: sub } } });
      let userId: string;
      let how: "linked_before" | "linked_by_email" | "created";
      if (link) {
        userId = link.userId;
        how = "linked_before";
        await tx.federatedIdentity.update({ where: { id: link.id }, data: { email, lastAmr: amr ?? undefined, lastAcr: acr, lastSignInAt: now } });
      } else {
        const existing = email ? await this.ports.findUserByEmail(tx, provider.tenantId, email) : null;
        if (existing) {
          if (!(provider.trustEmails && claims.email_verified === true)) {
            throw new Refused("email_not_linked", "An account with this email address already exists here. It is linked to this identity provider only when the provider vouches for the address (email_verified) and the workspace trusts the provider's emails. Sign in with your password, or ask an administrator.");
          }
          userId = existing.id;
          how = "linked_by_email";
        } else {
          if (f.a) throw new Refused("not_linked", "No account of this workspace is linked to your identity at this provider. Sign in with your password once, or ask an owner to link it.");
          if (!provider.jitProvisioning) throw new Refused("jit_off", "This workspace does not create accounts at first sign-in, and no account is linked to your identity. Ask an administrator to add you.");
          if (!email) throw new Refused("no_email", `The identity provider did not send an email address (claim ${map.email}), which a new account needs.`);
          const username = typeof nameClaim === "string" && nameClaim.trim() ? nameClaim.trim().slice(0, 200) : email.split("@")[0]!;
          userId = (await this.ports.createUser(tx, provider.tenantId, { email, username })).id;
          how = "created";
          if (provider.defaultRoleId && pending) await this.ports.grantRole(tx, { tenantId: provider.tenantId, roleId: provider.defaultRoleId, userId, resourceServerId: pending.resourceServerId });
        }
        await tx.federatedIdentity.create({
          data: { id: this.ids.uuid(), tenantId: provider.tenantId, providerId: provider.id, subject: sub, userId, email, lastAmr: amr ?? undefined, lastAcr: acr, lastSignInAt: now, createdAt: now },
        });
      }
      const standing = await this.ports.standing(tx, provider.tenantId, userId);
      if (standing !== "active") throw new Refused(standing, "Your access to this workspace is suspended or has ended. Signing in through your organization does not change that; ask an administrator.");
      if (provider.groupSync.length > 0 && Array.isArray(groupsClaim)) {
        const managed = [...new Set(provider.groupSync.map((g) => g.group_id))];
        const desired = [...new Set(provider.groupSync.filter((g) => upstreamGroups.has(g.upstream)).map((g) => g.group_id))];
        await this.ports.syncGroups(tx, provider.tenantId, userId, managed, desired);
      }
      const accountEmail = (await this.ports.emailOf(tx, provider.tenantId, userId)) ?? email ?? "";
      await recordAuditEvent(tx, {
        action: AUDIT_ACTIONS.signInSucceeded,
        workspaceId: provider.tenantId,
        actor: { type: "user", id: userId },
        target: { type: "user", id: userId },
        detail: { factor: FEDERATED_FACTOR, provider_id: provider.id, account: how, upstream_amr: amr, upstream_acr: acr },
      });
      return { id: userId, email: accountEmail };
    });
  }

  /** A refused federated sign-in is audited (after any rollback), with the stage that refused it. */
  private async failed(f: Flow, stage: string, userId?: string): Promise<void> {
    await recordAuditEvent(this.db, {
      action: AUDIT_ACTIONS.signInFailed,
      outcome: "failure",
      workspaceId: f.t,
      actor: userId ? { type: "user", id: userId } : { type: "anonymous", id: null },
      detail: { factor: FEDERATED_FACTOR, provider_id: f.p, reason: stage },
    });
  }
}
