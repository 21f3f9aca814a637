// Slows down password guessing without handing a guesser the power to lock the owner out
// (docs/decisions/0022-login-throttle.md). Failures are counted in the database (LoginFailure),
// so every instance on one PostgreSQL database sees the same counts and a restart forgets nothing.
//
// Three counts per failed attempt, each a row keyed by scope:
//   pair     (account, address): this address guessing this account. Backs off after PAIR_FREE.
//   address  (address):          this address guessing any account (spraying). Backs off after ADDRESS_FREE.
//   account  (account):          every address guessing this account (a distributed guess). Backs off
//                                after ACCOUNT_FREE, but only for addresses that have themselves failed
//                                on this account: an address that never failed (the owner at their
//                                desk) still signs in, so no one can lock the owner out from elsewhere.
// Backoff: once a count reaches its free allowance, the next attempt waits BASE_DELAY_S, doubling
// with every further failure up to MAX_DELAY_S, measured from the row's last failure. A throttled
// attempt is refused before the password is checked (no hashing work for a guesser).
// Cost per attempt is constant: one read of at most three rows by primary key; on failure up to
// three single-row writes; on success one delete. A row is dead WINDOW_MS after its last failure
// (the count restarts) and prune() deletes dead rows by index, never loading the table.
import { createHmac } from "node:crypto";
import type { Db } from "../../storage";
import type { Clock } from "../../shared/clock";
import { normaliseAddress } from "../../shared/client-address";

export const PAIR_FREE = 5;
export const ADDRESS_FREE = 30;
export const ACCOUNT_FREE = 20;
export const BASE_DELAY_S = 30;
export const MAX_DELAY_S = 15 * 60;
/** A count restarts (and its row may be pruned) this long after its last failure. */
export const WINDOW_MS = 60 * 60 * 1000;

/** Who tries to sign in, from where: both opaque to the throttle. */
export interface LoginAttempt {
  /** An opaque account key computed by the caller (LoginThrottle.accountKey). */
  account: string;
  /** The client address as the HTTP layer saw it (req.ip); normalised here. */
  address: string;
}

/** What a password check needs from the throttle (TenancyService). */
export interface LoginGuard {
  /** Seconds to wait before this attempt may be checked, or 0 when it may be checked now. */
  retryAfter(attempt: LoginAttempt): Promise<number>;
  failed(attempt: LoginAttempt): Promise<void>;
  succeeded(attempt: LoginAttempt): Promise<void>;
}

type Scope = "pair" | "address" | "account";

/** Seconds of backoff after `failures` failures with `free` allowed, from the last failure. */
export function backoffSeconds(failures: number, free: number): number {
  if (failures < free) return 0;
  return Math.min(MAX_DELAY_S, BASE_DELAY_S * 2 ** Math.min(failures - free, 16));
}

export class LoginThrottle implements LoginGuard {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** HMAC key of account keys (derived from the master key: the same on every instance and in the CLI). */
    private readonly accountKeySecret: Buffer,
  ) {}

  /**
   * The opaque key of an account: an HMAC of the normalised email, and of the workspace when the
   * caller knows it (users private to one workspace). No email is stored in the throttle's table.
   */
  accountKey(email: string, workspaceId?: string): string {
    return createHmac("sha256", this.accountKeySecret)
      .update(`${email.trim().toLowerCase()}\n${workspaceId ?? ""}`)
      .digest("base64url")
      .slice(0, 32);
  }

  private rows(attempt: LoginAttempt) {
    const address = normaliseAddress(attempt.address);
    return [
      { key: `pair:${attempt.account}:${address}`, scope: "pair" as Scope, accountKey: attempt.account, address },
      { key: `address:${address}`, scope: "address" as Scope, accountKey: null, address },
      { key: `account:${attempt.account}`, scope: "account" as Scope, accountKey: attempt.account, address: null },
    ];
  }

  async retryAfter(attempt: LoginAttempt): Promise<number> {
    const now = this.clock.now().getTime();
    const [pair, address, account] = this.rows(attempt);
    const found = await this.db.loginFailure.findMany({
      where: { key: { in: [pair!.key, address!.key, account!.key] }, lastFailureAt: { gte: new Date(now - WINDOW_MS) } },
    });
    const row = (key: string) => found.find((r) => r.key === key);
    const wait = (r: { failures: number; lastFailureAt: Date } | undefined, free: number) =>
      r ? Math.max(0, Math.ceil((r.lastFailureAt.getTime() + backoffSeconds(r.failures, free) * 1000 - now) / 1000)) : 0;
    const p = row(pair!.key);
    return Math.max(wait(p, PAIR_FREE), wait(row(address!.key), ADDRESS_FREE), p ? wait(row(account!.key), ACCOUNT_FREE) : 0);
  }

  async failed(attempt: LoginAttempt): Promise<void> {
    const now = this.clock.now();
    const live = new Date(now.getTime() - WINDOW_MS);
    await Promise.all(
      this.rows(attempt).map(async (r) => {
        const { count } = await this.db.loginFailure.updateMany({
          where: { key: r.key, lastFailureAt: { gte: live } },
          data: { failures: { increment: 1 }, lastFailureAt: now },
        });
        // No live row: start the count (an expired row restarts at 1). Native upsert on both databases.
        if (count === 0) {
          await this.db.loginFailure.upsert({ where: { key: r.key }, create: { ...r, failures: 1, lastFailureAt: now }, update: { failures: 1, lastFailureAt: now } });
        }
      }),
    );
  }

  /** A right password from this address: its pair count is cleared (the address is known good). */
  async succeeded(attempt: LoginAttempt): Promise<void> {
    await this.db.loginFailure.deleteMany({ where: { key: this.rows(attempt)[0]!.key } });
  }

  /** Operator unlock of accounts (every address's count for them); returns the rows cleared. */
  async unlockAccounts(accountKeys: string[]): Promise<number> {
    return (await this.db.loginFailure.deleteMany({ where: { accountKey: { in: accountKeys } } })).count;
  }

  /** Operator unlock of a client address (its pair counts and its own count). */
  async unlockAddress(address: string): Promise<number> {
    return (await this.db.loginFailure.deleteMany({ where: { address: normaliseAddress(address) } })).count;
  }

  /** Deletes dead rows (last failure older than the window), by index; returns how many. */
  async prune(): Promise<number> {
    return (await this.db.loginFailure.deleteMany({ where: { lastFailureAt: { lt: new Date(this.clock.now().getTime() - WINDOW_MS) } } })).count;
  }
}
