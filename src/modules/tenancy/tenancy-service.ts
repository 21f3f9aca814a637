// Workspaces, their users and the admin session: bootstrap, login, actor resolution.
import { z } from "zod";
import type { Db, DbOrTx } from "../../storage";
import { isUniqueViolation, recordAuditEvent } from "../../storage";
import { AUDIT_ACTIONS } from "../audit";
import type { Clock } from "../../shared/clock";
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from "../../shared/crypto";
import { DomainError, badRequest, conflict, forbidden, notFound, unauthenticated } from "../../shared/errors";
import type { LoginThrottle } from "./login-throttle";
import { type Actor, type MembershipType, assertCanRead, assertCanWrite, assertSameTenant } from "../../shared/actor";
import type { JwtService } from "../tokens";
import { toMembershipView, type MembershipView } from "./views";

export const emailSchema = z.string().trim().toLowerCase().email().max(254);
/** Accounts tried by a login without a workspace id (one per workspace the email owns). */
const MAX_ACCOUNTS_PER_LOGIN = 10;

export const passwordSchema = z.string().min(8, "must be at least 8 characters").max(1024);

export interface BootstrapInput {
  email: string;
  password: string;
  workspaceName: string;
}

/** Where a sign-in attempt comes from (the HTTP layer's client address). */
export interface LoginSource {
  address: string;
}

/** An account whose password was right and who may administer a workspace (admin login's first step). */
export interface AdminCandidate {
  userId: string;
  tenantId: string;
  email: string;
  role: MembershipType;
  credentialVersion: number;
  /** The workspace requires owners and admins to use a second factor. */
  workspaceRequiresMfa: boolean;
}
/** Sign-in attempts refused by the throttle before any password check: counted, not written one by one (an attacker's flood is cheap). */
export interface SignInEvents {
  throttled(address: string, workspaceId: string | null): void;
}
const NO_SIGN_IN_EVENTS: SignInEvents = { throttled: () => undefined };

/** Whose sign-in an attempt is, for its audit event (the account, when already known). */
interface SignInAudit {
  email: string;
  workspaceId: string | null;
  /** password, or otp for a one-time or recovery code. */
  factor: "password" | "otp";
  account?: { id: string; tenantId: string };
}

export interface UserView {
  id: string;
  email: string;
  username: string;
  membership: MembershipView;
}

/** Counters of password sign-in, for monitoring (GET /metrics reads them at scrape time). */
export interface SignInCounts {
  /** Password hashes verified (scrypt), the dummy hash of an unknown email included. */
  passwordChecks: number;
  /** Attempts refused by the throttle before any check. */
  throttled: number;
}

export class TenancyService {
  readonly stats: SignInCounts = { passwordChecks: 0, throttled: 0 };

  constructor(
    private readonly db: Db,
    private readonly jwt: JwtService,
    private readonly clock: Clock,
    /** Wrong-password counting for admin login and end-user sign-in alike (shared through the database). */
    private readonly throttle: LoginThrottle,
    private readonly events: SignInEvents = NO_SIGN_IN_EVENTS,
  ) {}

  /**
   * Creates a workspace and its owner, a new account of that workspace with `password`. Users are
   * private to one workspace (docs/decisions/0017-users-private-to-a-workspace.md): an email that
   * already owns another workspace becomes a second, separate account here.
   */
  async bootstrap(input: BootstrapInput): Promise<{ workspace_id: string; user_id: string }> {
    const email = emailSchema.parse(input.email);
    passwordSchema.parse(input.password);
    const passwordHash = await hashPassword(input.password);
    const now = this.clock.now();
    return this.db.$transaction(async (tx) => {
      const workspace = await tx.workspace.create({ data: { name: input.workspaceName.trim() || "Default workspace", createdAt: now } });
      const user = await tx.user.create({
        data: { tenantId: workspace.id, email, username: email.split("@")[0]!, passwordHash, createdAt: now, updatedAt: now },
      });
      await tx.membership.create({
        data: { tenantId: workspace.id, userId: user.id, membershipType: "owner", status: "active", source: "bootstrap", createdAt: now },
      });
      return { workspace_id: workspace.id, user_id: user.id };
    });
  }

  /** First start on an empty database: the TOOLGATE_ADMIN_* variables create the first workspace. */
  async bootstrapIfEmpty(admin: BootstrapInput | undefined): Promise<{ workspace_id: string; user_id: string } | null> {
    if (!admin) return null;
    if ((await this.db.workspace.count()) > 0) return null;
    return this.bootstrap(admin);
  }

  async countWorkspaces(): Promise<number> {
    return this.db.workspace.count();
  }

  /**
   * The account of `workspaceId` whose email and password these are, or null. An unknown email is
   * checked against a dummy hash, so response time does not tell which emails exist. Used by
   * end-user sign-in (the workspace of the resource server) and by admin login with a workspace id.
   * `source.address` is the client address: attempts back off per account and address
   * (login-throttle.ts); a throttled attempt throws too_many_requests before any password check.
   */
  async verifyCredentials(workspaceId: string, emailInput: string, password: string, source: LoginSource): Promise<{ id: string; email: string; credentialVersion: number } | null> {
    const email = emailInput.trim().toLowerCase();
    return this.throttled([this.throttle.accountKey(email, workspaceId)], source, { email, workspaceId, factor: "password" }, async () => {
      const user = await this.db.user.findUnique({ where: { tenantId_email: { tenantId: workspaceId, email } } });
      return (await this.passwordMatches(user, password)) ? user : null;
    });
  }

  /**
   * Admin login without a workspace id: the oldest account with this email whose password matches
   * (a person who owns several workspaces has one account in each; usually the same password).
   * At most MAX_ACCOUNTS_PER_LOGIN accounts are tried, so a login costs a bounded number of hashes.
   * The attempt counts against each of those accounts, under the same keys as a login naming the
   * workspace and the end-user sign-in: one allowance per account, whatever the door.
   */
  private async verifyAnyAccount(emailInput: string, password: string, source: LoginSource): Promise<{ id: string; email: string; tenantId: string; credentialVersion: number } | null> {
    const email = emailInput.trim().toLowerCase();
    const accounts = await this.db.user.findMany({ where: { email }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: MAX_ACCOUNTS_PER_LOGIN });
    // An email with no account is counted under its own key, so it is throttled like one that has accounts.
    const keys = accounts.length === 0 ? [this.throttle.accountKey(email)] : accounts.map((a) => this.throttle.accountKey(email, a.tenantId));
    return this.throttled(keys, source, { email, workspaceId: null, factor: "password" }, async () => {
      if (accounts.length === 0) await this.passwordMatches(null, password);
      for (const user of accounts) if ((await this.passwordMatches(user, password)) && (await this.activeMembership(user.id))) return user;
      return null;
    });
  }

  private activeMembership(userId: string) {
    return this.db.membership.findFirst({ where: { userId, status: "active" } });
  }

  private async passwordMatches(user: { passwordHash: string | null } | null, password: string): Promise<boolean> {
    this.stats.passwordChecks++;
    const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
    return ok && !!user?.passwordHash;
  }

  /**
   * One credential check under the throttle (admin login, end-user sign-in and one-time codes
   * alike): the attempt is counted under every account it may test before any password is hashed
   * (refused, it throws), then the audit event: signin.succeeded / signin.failed with the factor,
   * in the account's workspace. A failure for an email no account has goes to the installation's
   * chain without the email (people type their password into the email field).
   */
  private async throttled<T>(accounts: string[], source: LoginSource, audit: SignInAudit, check: () => Promise<T | null>): Promise<T | null> {
    const reservation = await this.throttle.reserve({ accounts, address: source.address });
    if (!reservation.allowed) {
      this.stats.throttled++;
      this.events.throttled(source.address, audit.workspaceId);
      throw new DomainError("too_many_requests", "too many failed sign-in attempts; try again later", { retry_after: reservation.retryAfter });
    }
    const found = await check();
    await reservation.settle(found ? "success" : "failure");
    const account =
      audit.account ??
      (found && typeof found === "object" && "tenantId" in found ? (found as unknown as { id: string; tenantId: string }) : null) ??
      (await this.db.user.findFirst({ where: { email: audit.email, ...(audit.workspaceId ? { tenantId: audit.workspaceId } : {}) }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], select: { id: true, tenantId: true } }));
    await recordAuditEvent(this.db, {
      action: found ? AUDIT_ACTIONS.signInSucceeded : AUDIT_ACTIONS.signInFailed,
      outcome: found ? "success" : "failure",
      workspaceId: account?.tenantId ?? null,
      actor: account ? { type: "user", id: account.id } : { type: "anonymous", id: null },
      target: account ? { type: "user", id: account.id } : undefined,
      detail: { factor: audit.factor, ...(found ? {} : { reason: account ? `wrong ${audit.factor === "password" ? "password" : "code"}` : "no such account" }) },
    });
    return found;
  }

  /**
   * The password step of admin login: the account and its active membership, or 401 (the same
   * answer for a wrong password and for an account that may not sign in: no credential oracle).
   * Whether a second factor follows is decided by the sign-in module (signin/mfa/admin-sign-in.ts).
   */
  async verifyAdmin(input: { email: string; password: string; workspace_id?: string }, source: LoginSource): Promise<AdminCandidate> {
    const user = input.workspace_id
      ? await this.verifyCredentials(input.workspace_id, input.email, input.password, source)
      : await this.verifyAnyAccount(input.email, input.password, source);
    if (!user) throw unauthenticated("invalid email or password");
    const membership = await this.db.membership.findFirst({ where: { userId: user.id, status: "active" }, include: { workspace: { select: { requireAdminMfa: true } } } });
    if (!membership) throw unauthenticated("invalid email or password");
    return {
      userId: user.id,
      tenantId: membership.tenantId,
      email: user.email,
      role: membership.membershipType as MembershipType,
      credentialVersion: user.credentialVersion,
      workspaceRequiresMfa: membership.workspace.requireAdminMfa,
    };
  }

  /** Admin SSO (identity-providers): the account's active membership of this workspace as an admin candidate, or null. */
  async adminCandidateOf(tenantId: string, userId: string): Promise<AdminCandidate | null> {
    const membership = await this.db.membership.findFirst({
      where: { tenantId, userId, status: "active" },
      include: { workspace: { select: { requireAdminMfa: true } }, user: { select: { email: true, credentialVersion: true } } },
    });
    if (!membership) return null;
    return {
      userId,
      tenantId,
      email: membership.user.email,
      role: membership.membershipType as MembershipType,
      credentialVersion: membership.user.credentialVersion,
      workspaceRequiresMfa: membership.workspace.requireAdminMfa,
    };
  }

  /** An admin JWT for a verified candidate, saying how they signed in (`amr`); `enrolOnly` limits it to enrolling a second factor. */
  async issueAdminToken(candidate: AdminCandidate, amr: readonly string[], enrolOnly = false): Promise<{ access_token: string; token_type: "Bearer"; expires_in: number }> {
    const { token, expiresIn } = await this.jwt.signAdminToken(candidate.userId, candidate.tenantId, candidate.credentialVersion, amr, enrolOnly);
    return { access_token: token, token_type: "Bearer", expires_in: expiresIn };
  }

  /**
   * A one-time-code attempt of a user, throttled like a password on the same account (one
   * allowance per account covers every door: the email of the user in its workspace).
   */
  async throttledAttempt<T>(tenantId: string, userId: string, source: LoginSource, check: () => Promise<T | null>): Promise<T | null> {
    const user = await this.db.user.findUnique({ where: { id: userId }, select: { email: true, tenantId: true } });
    if (!user || user.tenantId !== tenantId) return null;
    return this.throttled([this.throttle.accountKey(user.email, tenantId)], source, { email: user.email, workspaceId: tenantId, factor: "otp", account: { id: userId, tenantId } }, check);
  }

  /** A user's email (the name of their account in an authenticator app); null for an unknown user. */
  async emailOf(tenantId: string, userId: string): Promise<string | null> {
    return (await this.db.user.findFirst({ where: { id: userId, tenantId }, select: { email: true } }))?.email ?? null;
  }

  /** What /userinfo says of a user (email, username, last change), null for an unknown user. */
  async profileOf(tenantId: string, userId: string): Promise<{ email: string; username: string; updatedAt: Date } | null> {
    return this.db.user.findFirst({ where: { id: userId, tenantId }, select: { email: true, username: true, updatedAt: true } });
  }

  /** A user of the workspace by email (the operator's reset of second factors), or 404. */
  async findUser(emailInput: string, workspaceId?: string): Promise<{ user_id: string; workspace_id: string }> {
    const email = emailSchema.parse(emailInput);
    const accounts = await this.db.user.findMany({ where: { email, ...(workspaceId ? { tenantId: workspaceId } : {}) }, take: 2 });
    if (accounts.length === 0) throw notFound("user");
    if (accounts.length > 1) throw badRequest("this email has accounts in several workspaces; name one with --workspace");
    return { user_id: accounts[0]!.id, workspace_id: accounts[0]!.tenantId };
  }

  /** The workspace's MFA rule for administrators (owners, admins and auditors may read it). */
  async mfaPolicy(actor: Actor, tenantId: string): Promise<{ require_mfa_for_admins: boolean }> {
    assertSameTenant(actor, tenantId);
    assertCanRead(actor);
    const w = await this.db.workspace.findUniqueOrThrow({ where: { id: tenantId }, select: { requireAdminMfa: true } });
    return { require_mfa_for_admins: w.requireAdminMfa };
  }

  /** Only an owner sets it: the rule binds the admins, who must not be able to lift it. */
  async setMfaPolicy(actor: Actor, tenantId: string, input: { require_mfa_for_admins: boolean }): Promise<{ require_mfa_for_admins: boolean }> {
    assertSameTenant(actor, tenantId);
    if (actor.role !== "owner") throw forbidden("only an owner may change the workspace's MFA rule");
    const w = await this.db.workspace.update({ where: { id: tenantId }, data: { requireAdminMfa: input.require_mfa_for_admins }, select: { requireAdminMfa: true } });
    return { require_mfa_for_admins: w.requireAdminMfa };
  }

  /** Whether end users of the workspace may sign in with a password (the sign-in page's form). */
  async endUserPasswordSignIn(tenantId: string): Promise<boolean> {
    return (await this.db.workspace.findUnique({ where: { id: tenantId }, select: { endUserPasswordSignIn: true } }))?.endUserPasswordSignIn ?? true;
  }

  async signInPolicy(actor: Actor, tenantId: string): Promise<{ end_user_password: boolean }> {
    assertSameTenant(actor, tenantId);
    assertCanRead(actor);
    return { end_user_password: await this.endUserPasswordSignIn(tenantId) };
  }

  /** Owners and admins turn the end users' password form on or off (admins keep their own password login: no lockout). */
  async setSignInPolicy(actor: Actor, tenantId: string, input: { end_user_password: boolean }): Promise<{ end_user_password: boolean }> {
    assertSameTenant(actor, tenantId);
    assertCanWrite(actor);
    const w = await this.db.workspace.update({ where: { id: tenantId }, data: { endUserPasswordSignIn: input.end_user_password }, select: { endUserPasswordSignIn: true } });
    return { end_user_password: w.endUserPasswordSignIn };
  }

  /**
   * Operator action (CLI `toolgate users reset-password`): sets a new password and clears the
   * account's failed-attempt counts. It raises the credential version, so admin tokens issued
   * before the reset (an intruder's too) are refused from the next request on.
   */
  async resetPassword(emailInput: string, password: string, workspaceId?: string): Promise<{ user_id: string; workspace_id: string }> {
    const email = emailSchema.parse(emailInput);
    passwordSchema.parse(password);
    const accounts = await this.db.user.findMany({ where: { email, ...(workspaceId ? { tenantId: workspaceId } : {}) }, take: 2 });
    if (accounts.length === 0) throw notFound("user");
    if (accounts.length > 1) throw badRequest("this email has accounts in several workspaces; name one with --workspace");
    const user = accounts[0]!;
    const passwordHash = await hashPassword(password);
    await this.db.$transaction(async (tx) => {
      await tx.user.update({ where: { id: user.id }, data: { passwordHash, credentialVersion: { increment: 1 }, updatedAt: this.clock.now() } });
      await recordAuditEvent(tx, { action: AUDIT_ACTIONS.passwordReset, target: { type: "user", id: user.id } });
    });
    await this.clearAccountCounts(email);
    return { user_id: user.id, workspace_id: user.tenantId };
  }

  /** Operator action (CLI `toolgate users unlock`): clears the failed-attempt counts of an account or an address. */
  async unlock(target: { email?: string; address?: string }): Promise<{ cleared: number }> {
    let cleared = 0;
    if (target.email !== undefined) cleared += await this.clearAccountCounts(emailSchema.parse(target.email));
    if (target.address !== undefined) cleared += await this.throttle.unlockAddress(target.address);
    return { cleared };
  }

  /** Every throttle key of an email: login without a workspace, and each workspace's account (bounded). */
  private async clearAccountCounts(email: string): Promise<number> {
    const accounts = await this.db.user.findMany({ where: { email }, select: { tenantId: true }, take: 1000 });
    return this.throttle.unlockAccounts([this.throttle.accountKey(email), ...accounts.map((a) => this.throttle.accountKey(email, a.tenantId))]);
  }

  /**
   * Turns verified admin-JWT claims into an Actor, checking the membership is still active now.
   * Undefined when the token was issued under an older credential version (a password reset since).
   */
  async resolveActor(userId: string, tenantId: string, credentialVersion: number): Promise<Actor | undefined> {
    // One query on every admin request: the relation filter is a subquery, not a second read.
    const m = await this.db.membership.findFirst({ where: { tenantId, userId, status: "active", user: { credentialVersion } } });
    if (m) return { userId, tenantId, role: m.membershipType as MembershipType };
    // The rare refusals: a token from before a password reset (401), or not an active member (403).
    const member = await this.db.membership.findUnique({ where: { tenantId_userId: { tenantId, userId } }, include: { user: { select: { credentialVersion: true } } } });
    if (member?.status === "active" && member.user.credentialVersion !== credentialVersion) return undefined;
    throw forbidden("not an active member of this workspace");
  }

  async getWorkspace(actor: Actor): Promise<{ id: string; name: string; createdAt: Date }> {
    const w = await this.db.workspace.findUniqueOrThrow({ where: { id: actor.tenantId } });
    return w;
  }

  // ---------------------------------------------------------------- federated sign-in (identity-providers' ports)

  /** The workspace's account with this email, inside the sign-in's transaction. */
  async findUserByEmailIn(tx: DbOrTx, tenantId: string, email: string): Promise<{ id: string; email: string } | null> {
    return tx.user.findUnique({ where: { tenantId_email: { tenantId, email: email.trim().toLowerCase() } }, select: { id: true, email: true } });
  }

  /** A just-in-time account (first sign-in through an upstream provider): no password, a `member` membership. */
  async createFederatedUser(tx: DbOrTx, tenantId: string, input: { email: string; username: string }): Promise<{ id: string; email: string }> {
    const now = this.clock.now();
    const user = await tx.user.create({ data: { tenantId, email: input.email.trim().toLowerCase(), username: input.username, passwordHash: null, createdAt: now, updatedAt: now } });
    await tx.membership.create({ data: { tenantId, userId: user.id, source: "federation", createdAt: now } });
    return { id: user.id, email: user.email };
  }

  async emailIn(tx: DbOrTx, tenantId: string, userId: string): Promise<string | null> {
    return (await tx.user.findFirst({ where: { id: userId, tenantId }, select: { email: true } }))?.email ?? null;
  }

  /** Whether a person may sign in to the workspace: an active membership and no end-user suspension. */
  async standingIn(tx: DbOrTx, tenantId: string, userId: string): Promise<"active" | "suspended" | "removed"> {
    const [membership, endUser] = await Promise.all([
      tx.membership.findUnique({ where: { tenantId_userId: { tenantId, userId } }, select: { status: true } }),
      tx.endUserState.findUnique({ where: { tenantId_userId: { tenantId, userId } }, select: { status: true } }),
    ]);
    if (!membership || membership.status === "left") return "removed";
    if (membership.status !== "active" || endUser?.status === "suspended") return "suspended";
    return "active";
  }

  /** An admin creates a user of this workspace, who joins it as `member`. */
  async createUser(actor: Actor, tenantId: string, input: { email: string; username: string; password?: string }): Promise<UserView> {
    assertSameTenant(actor, tenantId);
    assertCanWrite(actor);
    const passwordHash = input.password ? await hashPassword(input.password) : null;
    const now = this.clock.now();
    try {
      const created = await this.db.$transaction(async (tx) => {
        const user = await tx.user.create({ data: { tenantId, email: input.email, username: input.username, passwordHash, createdAt: now, updatedAt: now } });
        const membership = await tx.membership.create({ data: { tenantId, userId: user.id, createdAt: now } });
        return { id: user.id, email: user.email, username: user.username, membership: toMembershipView(membership) };
      });
      return created;
    } catch (e) {
      // Only this workspace's users are compared: an email used in another workspace is another account.
      if (isUniqueViolation(e)) throw conflict("a user with this email already exists in this workspace");
      throw e;
    }
  }
}
