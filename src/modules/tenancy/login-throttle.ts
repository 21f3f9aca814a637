// Slows down password guessing without handing a guesser the power to lock the owner out
// (docs/decisions/0022-login-throttle.md, amended by 0030-attempts-counted-before-checked.md).
// Attempts are counted in the database (LoginFailure), so every instance on one PostgreSQL
// database sees the same counts and a restart forgets nothing.
//
// Three counts per attempt, each a row keyed by scope:
//   pair     (account, address): this address trying this account. Backs off after PAIR_FREE.
//   address  (address):          this address trying any account (spraying). Backs off after ADDRESS_FREE.
//   account  (account):          every address trying this account (a distributed guess). Backs off
//                                after ACCOUNT_FREE, but only for addresses that had themselves tried
//                                this account before: an address that never did (the owner at their
//                                desk) still signs in, so no one can lock the owner out from elsewhere.
// Backoff: once a count reaches its free allowance, the next attempt waits BASE_DELAY_S, doubling
// with every further attempt up to MAX_DELAY_S, measured from the row's last attempt.
//
// An attempt is counted BEFORE its password is checked (reserve), on every key at once, and the
// count it was decided from is the count it moved: within the free allowance by a conditional
// increment (`failures < free`), in the backoff by a compare-and-set on (failures, lastFailureAt),
// a missing or expired row by a create or a compare-and-set restart. So however many attempts
// arrive together, on however many instances, at most PAIR_FREE of them are checked per account
// and address before the backoff, and no write ever sets a live count back. A refused attempt is
// counted too (it is a guess that was not let through) and moves the backoff on; a right password
// then clears the pair and gives back what its reservation took from the address and account
// counts (it was not a guess). Cost per attempt: one read of the rows by primary key and one write
// per row (a retry only when another attempt moved the same row in between); a success adds one
// delete and one update. A row is dead WINDOW_MS after its last attempt (the count restarts) and
// prune() deletes dead rows by index, never loading the table.
import { createHmac } from "node:crypto";
import type { Db } from "../../storage";
import { isUniqueViolation } from "../../storage";
import type { Clock } from "../../shared/clock";
import { normaliseAddress } from "../../shared/client-address";

export const PAIR_FREE = 5;
export const ADDRESS_FREE = 30;
export const ACCOUNT_FREE = 20;
export const BASE_DELAY_S = 30;
export const MAX_DELAY_S = 15 * 60;
/** A count restarts (and its row may be pruned) this long after its last attempt. */
export const WINDOW_MS = 60 * 60 * 1000;

/** What an attempt is counted under: opaque account keys and the client address. */
export interface AttemptKeys {
  /**
   * Every account whose secret this attempt's check may test (LoginThrottle.accountKey): one for a
   * sign-in naming the workspace, each candidate account for a login that does not.
   */
  accounts: readonly string[];
  /** The client address as the HTTP layer saw it (req.ip); normalised here. */
  address: string;
}

/**
 * The answer to reserve(): either the attempt may be checked now, and its outcome is then settled
 * once, or it is refused unchecked (it has been counted) and may be retried after `retryAfter` s.
 */
export type Reservation =
  | { allowed: true; settle(outcome: "success" | "failure"): Promise<void> }
  | { allowed: false; retryAfter: number };

type Scope = "pair" | "address" | "account";

interface Counter {
  key: string;
  scope: Scope;
  accountKey: string | null;
  address: string | null;
}

interface Row {
  key: string;
  failures: number;
  lastFailureAt: Date;
}

const FREE: Record<Scope, number> = { pair: PAIR_FREE, address: ADDRESS_FREE, account: ACCOUNT_FREE };

/** Seconds of backoff after `failures` attempts with `free` allowed, from the last attempt. */
export function backoffSeconds(failures: number, free: number): number {
  if (failures < free) return 0;
  return Math.min(MAX_DELAY_S, BASE_DELAY_S * 2 ** Math.min(failures - free, 16));
}

export class LoginThrottle {
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

  /**
   * Counts one attempt under every key of `keys`, before anything is checked, and says whether it
   * may be checked. Call settle() of an allowed reservation once the check is done.
   */
  async reserve(keys: AttemptKeys): Promise<Reservation> {
    const now = this.clock.now();
    const address = normaliseAddress(keys.address);
    const accounts = [...new Set(keys.accounts)];
    const counters = accounts.flatMap((account): Counter[] => [
      { key: `pair:${account}:${address}`, scope: "pair", accountKey: account, address },
      { key: `account:${account}`, scope: "account", accountKey: account, address: null },
    ]);
    counters.push({ key: `address:${address}`, scope: "address", accountKey: null, address });
    const read = new Map((await this.db.loginFailure.findMany({ where: { key: { in: counters.map((c) => c.key) } } })).map((r) => [r.key, r as Row]));

    let allowed = true;
    let retryAfter = 0;
    let pairBefore = 0;
    for (const counter of counters) {
      // The account's count holds back only addresses that had tried this account before.
      const applies = counter.scope !== "account" || pairBefore > 0;
      const counted = await this.count(counter, read.get(counter.key), now, allowed && applies, applies);
      if (counter.scope === "pair") pairBefore = counted.before;
      if (!applies) continue;
      if (counted.wait > 0) allowed = false;
      retryAfter = Math.max(retryAfter, backoffSeconds(counted.before + 1, FREE[counter.scope]));
    }
    if (!allowed) return { allowed: false, retryAfter };
    const pairs = counters.filter((c) => c.scope === "pair").map((c) => c.key);
    const others = counters.filter((c) => c.scope !== "pair").map((c) => c.key);
    let settled = false;
    return {
      allowed: true,
      settle: async (outcome) => {
        if (settled) return;
        settled = true;
        if (outcome === "failure") return; // counted already
        // A right password: the address is known good for these accounts, and the attempt was no guess.
        await this.db.loginFailure.deleteMany({ where: { key: { in: pairs } } });
        await this.db.loginFailure.updateMany({ where: { key: { in: others }, failures: { gt: 0 } }, data: { failures: { decrement: 1 } } });
      },
    };
  }

  /**
   * Adds this attempt to one count, starting from `row` as read. `claim`: the attempt is still
   * allowed so far, so the count must move only from the state the decision was made on (a
   * conditional increment or a compare-and-set; on a lost race, read again and decide again);
   * otherwise a plain increment. `blocks`: whether this count's backoff holds the attempt back.
   * Answers the live count before this attempt and the wait that count imposed.
   */
  private async count(counter: Counter, row: Row | undefined, now: Date, claim: boolean, blocks: boolean): Promise<{ before: number; wait: number }> {
    const liveFrom = new Date(now.getTime() - WINDOW_MS);
    const free = FREE[counter.scope];
    for (;;) {
      if (!row) {
        try {
          await this.db.loginFailure.create({ data: { ...counter, failures: 1, lastFailureAt: now } });
          return { before: 0, wait: 0 };
        } catch (e) {
          if (!isUniqueViolation(e)) throw e; // another attempt created it first: count on top of it
        }
      } else if (row.lastFailureAt < liveFrom) {
        // A dead count restarts at 1, unless another attempt restarted (or moved) it first.
        const restarted = await this.db.loginFailure.updateMany({ where: { key: row.key, failures: row.failures, lastFailureAt: row.lastFailureAt }, data: { failures: 1, lastFailureAt: now } });
        if (restarted.count === 1) return { before: 0, wait: 0 };
      } else {
        const left = row.lastFailureAt.getTime() + backoffSeconds(row.failures, free) * 1000 - now.getTime();
        const wait = blocks && left > 0 ? Math.ceil(left / 1000) : 0;
        const live = { key: row.key, lastFailureAt: { gte: liveFrom } };
        const where =
          !claim || wait > 0
            ? live // refused (here or by another count): counted, nothing decided from it
            : row.failures < free
              ? { ...live, failures: { lt: free } } // within the allowance: one of its slots
              : { key: row.key, failures: row.failures, lastFailureAt: row.lastFailureAt }; // past the wait: this exact state
        const moved = await this.db.loginFailure.updateMany({ where, data: { failures: { increment: 1 }, lastFailureAt: now } });
        if (moved.count === 1) return { before: row.failures, wait };
      }
      row = ((await this.db.loginFailure.findUnique({ where: { key: counter.key } })) ?? undefined) as Row | undefined;
    }
  }

  /** Operator unlock of accounts (every address's count for them); returns the rows cleared. */
  async unlockAccounts(accountKeys: string[]): Promise<number> {
    return (await this.db.loginFailure.deleteMany({ where: { accountKey: { in: accountKeys } } })).count;
  }

  /** Operator unlock of a client address (its pair counts and its own count). */
  async unlockAddress(address: string): Promise<number> {
    return (await this.db.loginFailure.deleteMany({ where: { address: normaliseAddress(address) } })).count;
  }

  /** Deletes dead rows (last attempt older than the window), by index; returns how many. */
  async prune(): Promise<number> {
    return (await this.db.loginFailure.deleteMany({ where: { lastFailureAt: { lt: new Date(this.clock.now().getTime() - WINDOW_MS) } } })).count;
  }
}
