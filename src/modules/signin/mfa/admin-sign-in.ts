// Admin login with a second factor (docs/operations.md "Second factors"): the password step is
// tenancy's (TenancyService.verifyAdmin); then, when the account has a second factor, the answer is
// 401 {"error":"mfa_required","mfa_ticket",...} instead of a token, and the ticket plus a code
// (POST /svc/uflow/auth/mfa) or a passkey (POST /svc/webauthn/login/*) gives the admin JWT, whose
// `amr` says which factors were used. The ticket is MAC'd, lives 5 minutes and mints one token.
// When the workspace requires MFA of owners and admins and this one has no factor yet, the token
// is enrol-only: it can enrol a factor, nothing else, so nobody is locked out (the owner included).
import type { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/server";
import { DomainError, unauthenticated } from "../../../shared/errors";
import type { IdGenerator } from "../../../shared/ids";
import { amrOf } from "../factors";
import type { TicketSealer } from "../tickets";
import type { UsedLoginTickets } from "../used-login-tickets";
import type { AttemptSource } from "./person";
import type { PasskeyService } from "./passkey-service";
import type { TotpService } from "./totp-service";

const MFA_TICKET_TTL_S = 300;

/** What the password step established (tenancy's AdminCandidate). */
export interface AdminAccount {
  userId: string;
  tenantId: string;
  role: string;
  workspaceRequiresMfa: boolean;
}

export interface AdminTokenAnswer {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  /** Present (true) on an enrol-only token. */
  mfa_enrollment_required?: true;
}

export interface AdminSignInPorts<A extends AdminAccount> {
  verifyAdmin(input: { email: string; password: string; workspace_id?: string }, source: AttemptSource): Promise<A>;
  issueAdminToken(account: A, amr: readonly string[], enrolOnly: boolean): Promise<{ access_token: string; token_type: "Bearer"; expires_in: number }>;
}

interface MfaTicket<A> {
  a: A;
  n: string; // nonce: the one token this ticket may mint records it
  exp: number;
}

/** Second factors an account can use, in the order offered. */
export type SecondFactorId = "otp" | "passkey";

export class AdminSignIn<A extends AdminAccount> {
  constructor(
    private readonly ports: AdminSignInPorts<A>,
    private readonly totp: TotpService,
    private readonly passkeys: PasskeyService,
    private readonly tickets: TicketSealer,
    private readonly used: UsedLoginTickets,
    private readonly ids: IdGenerator,
  ) {}

  /** The account's second factors (what the mfa_required answer offers). */
  async secondFactors(tenantId: string, userId: string): Promise<SecondFactorId[]> {
    const person = { tenantId, userId };
    const [otp, passkey] = await Promise.all([this.totp.enrolled(person), this.passkeys.has(person)]);
    return [...(otp ? (["otp"] as const) : []), ...(passkey ? (["passkey"] as const) : [])];
  }

  /** POST /svc/uflow/auth/login */
  async login(input: { email: string; password: string; workspace_id?: string }, source: AttemptSource): Promise<AdminTokenAnswer> {
    const account = await this.ports.verifyAdmin(input, source);
    const factors = await this.secondFactors(account.tenantId, account.userId);
    if (factors.length > 0) {
      const ticket = this.tickets.seal("admin_mfa", { a: account, n: this.ids.token(16) }, MFA_TICKET_TTL_S);
      throw new DomainError("unauthenticated", "mfa_required", { mfa_ticket: ticket, factors, expires_in: MFA_TICKET_TTL_S });
    }
    const enrolOnly = account.workspaceRequiresMfa && (account.role === "owner" || account.role === "admin");
    const token = await this.ports.issueAdminToken(account, amrOf(["pwd"]), enrolOnly);
    return enrolOnly ? { ...token, mfa_enrollment_required: true } : token;
  }

  private open(ticket: string | undefined): MfaTicket<A> {
    const t = this.tickets.open<MfaTicket<A>>("admin_mfa", ticket);
    if (!t || typeof t.n !== "string") throw unauthenticated("the mfa_ticket is invalid or expired; sign in again");
    return t;
  }

  private async finish(t: MfaTicket<A>, factor: string): Promise<AdminTokenAnswer> {
    if (!(await this.used.consume(t.n, new Date(t.exp * 1000)))) throw unauthenticated("the mfa_ticket was already used; sign in again");
    return this.ports.issueAdminToken(t.a, amrOf(["pwd", factor]), false);
  }

  /** POST /svc/uflow/auth/mfa {mfa_ticket, code}: an authenticator code or a recovery code. */
  async completeWithCode(ticket: string, code: string, source: AttemptSource): Promise<AdminTokenAnswer> {
    const t = this.open(ticket);
    const factor = await this.totp.verify({ tenantId: t.a.tenantId, userId: t.a.userId }, code, source);
    if (!factor) throw unauthenticated("invalid or already used code");
    return this.finish(t, factor);
  }

  /** POST /svc/webauthn/login/begin {mfa_ticket} */
  async passkeyOptions(ticket: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const t = this.open(ticket);
    return this.passkeys.authenticationOptions(t.a.tenantId, t.a.userId);
  }

  /** POST /svc/webauthn/login/finish {mfa_ticket, response} */
  async completeWithPasskey(ticket: string, response: AuthenticationResponseJSON): Promise<AdminTokenAnswer> {
    const t = this.open(ticket);
    await this.passkeys.authenticate(t.a.tenantId, response, t.a.userId);
    return this.finish(t, "passkey");
  }
}
