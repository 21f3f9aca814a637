// Workspaces, installation users and the admin session: bootstrap, login, actor resolution.
import { z } from "zod";
import type { Db } from "../../storage";
import { isUniqueViolation } from "../../storage";
import type { Clock } from "../../shared/clock";
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from "../../shared/crypto";
import { DomainError, conflict, forbidden, notFound, unauthenticated } from "../../shared/errors";
import type { LoginThrottle } from "./login-throttle";
import { type Actor, type MembershipType, assertCanWrite, assertSameTenant } from "../../shared/actor";
import type { JwtService } from "../tokens";
import { toMembershipView, type MembershipView } from "./views";

export const emailSchema = z.string().trim().toLowerCase().email().max(254);
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

export interface UserView {
  id: string;
  email: string;
  username: string;
  membership: MembershipView;
}

export class TenancyService {
  constructor(
    private readonly db: Db,
    private readonly jwt: JwtService,
    private readonly clock: Clock,
    /** Wrong-password counting for admin login and end-user sign-in alike (shared through the database). */
    private readonly throttle: LoginThrottle,
  ) {}

  /**
   * Creates a workspace with `email` as its owner. An existing user keeps their password (it is
   * verified, so a bootstrap cannot take over someone else's account); a new user gets `password`.
   */
  async bootstrap(input: BootstrapInput): Promise<{ workspace_id: string; user_id: string }> {
    const email = emailSchema.parse(input.email);
    passwordSchema.parse(input.password);
    const existing = await this.db.user.findUnique({ where: { email } });
    if (existing?.passwordHash && !(await verifyPassword(input.password, existing.passwordHash))) {
      throw conflict("a user with this email exists and the password does not match");
    }
    const passwordHash = existing?.passwordHash ? undefined : await hashPassword(input.password);
    const now = this.clock.now();
    const created = await this.db.$transaction(async (tx) => {
      const user =
        existing ??
        (await tx.user.create({ data: { email, username: email.split("@")[0]!, passwordHash, createdAt: now, updatedAt: now } }));
      if (existing && passwordHash) await tx.user.update({ where: { id: existing.id }, data: { passwordHash } });
      const workspace = await tx.workspace.create({ data: { name: input.workspaceName.trim() || "Default workspace", createdAt: now } });
      await tx.membership.create({
        data: { tenantId: workspace.id, userId: user.id, membershipType: "owner", status: "active", source: "bootstrap", createdAt: now },
      });
      return { workspace_id: workspace.id, user_id: user.id };
    });
    return created;
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
   * The user whose password this is, or null. An unknown email is checked against a dummy hash,
   * so response time does not tell which emails exist. Used by admin login and end-user sign-in.
   * `source.address` is the client address: failures back off per account and address
   * (login-throttle.ts); a throttled attempt throws too_many_requests before any password check.
   */
  async verifyCredentials(emailInput: string, password: string, source: LoginSource): Promise<{ id: string; email: string } | null> {
    const email = emailInput.trim().toLowerCase();
    const attempt = { account: this.throttle.accountKey(email), address: source.address };
    const wait = await this.throttle.retryAfter(attempt);
    if (wait > 0) throw new DomainError("too_many_requests", "too many failed sign-in attempts; try again later", { retry_after: wait });
    const user = await this.db.user.findUnique({ where: { email } });
    const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
    if (user && user.passwordHash && ok) {
      await this.throttle.succeeded(attempt);
      return { id: user.id, email: user.email };
    }
    await this.throttle.failed(attempt);
    return null;
  }

  /** Verifies a password login and issues an admin JWT for one of the user's workspaces. */
  async login(input: { email: string; password: string; workspace_id?: string }, source: LoginSource): Promise<{ access_token: string; token_type: "Bearer"; expires_in: number }> {
    const user = await this.verifyCredentials(input.email, input.password, source);
    if (!user) throw unauthenticated("invalid email or password");
    const memberships = await this.db.membership.findMany({
      where: { userId: user.id, status: "active", ...(input.workspace_id ? { tenantId: input.workspace_id } : {}) },
      orderBy: { createdAt: "asc" },
    });
    const chosen = memberships[0];
    // The same answer as a wrong password: a right password must not be confirmed to someone who
    // cannot use it (no credential oracle).
    if (!chosen) throw unauthenticated("invalid email or password");
    const { token, expiresIn } = await this.jwt.signAdminToken(user.id, chosen.tenantId);
    return { access_token: token, token_type: "Bearer", expires_in: expiresIn };
  }

  /**
   * Operator action (CLI `toolgate users reset-password`): sets a new password and clears the
   * account's failed-attempt counts. Admin JWTs already issued stay valid until they expire.
   */
  async resetPassword(emailInput: string, password: string): Promise<{ user_id: string }> {
    const email = emailSchema.parse(emailInput);
    passwordSchema.parse(password);
    const user = await this.db.user.findUnique({ where: { email } });
    if (!user) throw notFound("user");
    await this.db.user.update({ where: { id: user.id }, data: { passwordHash: await hashPassword(password), updatedAt: this.clock.now() } });
    await this.throttle.unlockAccount(this.throttle.accountKey(email));
    return { user_id: user.id };
  }

  /** Operator action (CLI `toolgate users unlock`): clears the failed-attempt counts of an account or an address. */
  async unlock(target: { email?: string; address?: string }): Promise<{ cleared: number }> {
    let cleared = 0;
    if (target.email !== undefined) cleared += await this.throttle.unlockAccount(this.throttle.accountKey(emailSchema.parse(target.email)));
    if (target.address !== undefined) cleared += await this.throttle.unlockAddress(target.address);
    return { cleared };
  }

  /** Turns verified admin-JWT claims into an Actor, checking the membership is still active now. */
  async resolveActor(userId: string, tenantId: string): Promise<Actor> {
    const m = await this.db.membership.findUnique({ where: { tenantId_userId: { tenantId, userId } } });
    if (!m || m.status !== "active") throw forbidden("not an active member of this workspace");
    return { userId, tenantId, role: m.membershipType as MembershipType };
  }

  async getWorkspace(actor: Actor): Promise<{ id: string; name: string; createdAt: Date }> {
    const w = await this.db.workspace.findUniqueOrThrow({ where: { id: actor.tenantId } });
    return w;
  }

  /** An admin creates an installation user who joins this workspace as `member`. */
  async createUser(actor: Actor, tenantId: string, input: { email: string; username: string; password?: string }): Promise<UserView> {
    assertSameTenant(actor, tenantId);
    assertCanWrite(actor);
    const passwordHash = input.password ? await hashPassword(input.password) : null;
    const now = this.clock.now();
    try {
      const created = await this.db.$transaction(async (tx) => {
        const user = await tx.user.create({ data: { email: input.email, username: input.username, passwordHash, createdAt: now, updatedAt: now } });
        const membership = await tx.membership.create({ data: { tenantId, userId: user.id, createdAt: now } });
        return { id: user.id, email: user.email, username: user.username, membership: toMembershipView(membership) };
      });
      return created;
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict("a user with this email already exists; add them with POST .../memberships");
      throw e;
    }
  }
}
