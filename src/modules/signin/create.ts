// Builds the end-user sign-in pieces. The ports connect it to the other modules without this
// module importing them: clients (lookup), resource servers (registry), tenancy (passwords, the
// throttle, admin accounts), tokens (ID token hints) and the one scope resolver (rbac).
import type { Db } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { AuthorizationCodes } from "./authorization-codes";
import { FirstTimeGrant, type GrantRole } from "./first-time-grant";
import { RefreshTokens, type RefreshRotationSettings } from "./refresh-tokens";
import { SignInService, type SignInPorts } from "./signin-service";
import { TicketSealer } from "./tickets";
import { UsedLoginTickets } from "./used-login-tickets";
import { BrowserSessions, type SessionSettings } from "./sessions/browser-sessions";
import { RememberedConsents } from "./sessions/remembered-consents";
import { RecoveryCodes } from "./mfa/recovery-codes";
import { TotpService } from "./mfa/totp-service";
import { PasskeyService, type RelyingParty } from "./mfa/passkey-service";
import { WebAuthnChallenges } from "./mfa/webauthn-challenges";
import { AdminSignIn, type AdminAccount, type AdminSignInPorts } from "./mfa/admin-sign-in";
import type { Person, ThrottledCheck } from "./mfa/person";
import { LogoutService } from "./sessions/logout";

/** How long a WebAuthn ceremony may take (the challenge's life). */
export const WEBAUTHN_TIMEOUT_MS = 120_000;

export interface SignInDeps<A extends AdminAccount> {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  /** Key for the page tickets' MAC (derived from the master key). */
  ticketKey: Buffer;
  /** Key the TOTP secrets are encrypted with (derived from the master key). */
  secondFactorKey: Buffer;
  /** Pepper of recovery-code hashes (the secret pepper). */
  pepper: Buffer;
  issuer: string;
  ports: SignInPorts;
  /** rbac's first-time grant (BindingService.grantFirstTime). */
  grantRole: GrantRole;
  /** Refresh rotation: the successor key (derived from the master key) and the retry grace (TOOLGATE_REFRESH_GRACE_SECONDS). */
  refresh: RefreshRotationSettings;
  /** Browser sessions' idle and absolute timeouts (TOOLGATE_SESSION_*). */
  sessions: SessionSettings;
  /** The sign-in throttle around one-time codes (tenancy's LoginThrottle, one allowance per account). */
  throttled: ThrottledCheck;
  /** Admin login's password step and token (tenancy). */
  admin: AdminSignInPorts<A>;
  /** Where RP-initiated logout may send a client's browser back (clients' registry). */
  postLogoutRedirectUris(clientId: string): Promise<readonly string[] | null>;
}

export interface SignInServices<A extends AdminAccount = AdminAccount> {
  service: SignInService;
  codes: AuthorizationCodes;
  refreshTokens: RefreshTokens;
  firstTimeGrant: FirstTimeGrant;
  sessions: BrowserSessions;
  consents: RememberedConsents;
  totp: TotpService;
  passkeys: PasskeyService;
  adminSignIn: AdminSignIn<A>;
  logout: LogoutService;
}

export function createSignIn<A extends AdminAccount>(deps: SignInDeps<A>): SignInServices<A> {
  const codes = new AuthorizationCodes(deps.db, deps.clock, deps.ids);
  const refreshTokens = new RefreshTokens(deps.db, deps.clock, deps.ids, deps.refresh);
  const firstTimeGrant = new FirstTimeGrant(deps.db, deps.clock, deps.grantRole);
  const tickets = new TicketSealer(deps.ticketKey, () => deps.clock.now());
  const usedLoginTickets = new UsedLoginTickets(deps.db, deps.clock);
  const sessions = new BrowserSessions(deps.db, deps.clock, deps.ids, deps.sessions);
  const consents = new RememberedConsents(deps.db, deps.clock, deps.ids);
  const accountName = async (p: Person) => (await deps.ports.userEmail(p.tenantId, p.userId)) ?? p.userId;
  const url = new URL(deps.issuer);
  const rp: RelyingParty = { id: url.hostname, origin: url.origin, name: "Toolgate" };
  const totp = new TotpService(deps.db, deps.clock, deps.secondFactorKey, new RecoveryCodes(deps.pepper, deps.clock, deps.ids), deps.throttled, accountName, `Toolgate (${url.host})`);
  const passkeys = new PasskeyService(deps.db, deps.clock, new WebAuthnChallenges(deps.db, deps.clock, deps.ids, WEBAUTHN_TIMEOUT_MS), rp, accountName);
  const service = new SignInService(deps.ports, { tickets, codes, usedLoginTickets, firstTimeGrant, sessions, consents, totp, passkeys }, deps.issuer, deps.ids, deps.clock);
  const adminSignIn = new AdminSignIn(deps.admin, totp, passkeys, tickets, usedLoginTickets, deps.ids);
  const logout = new LogoutService(sessions, tickets, (t) => deps.ports.readIdTokenHint(t), deps.postLogoutRedirectUris, deps.issuer);
  return { service, codes, refreshTokens, firstTimeGrant, sessions, consents, totp, passkeys, adminSignIn, logout };
}
