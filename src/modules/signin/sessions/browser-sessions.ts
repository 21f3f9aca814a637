// Browser sessions (docs/openid-provider.md "Sessions"): one per signed-in browser, whatever the
// way the person signed in (password, one-time code, passkey; upstream providers later). The cookie
// carries 256 random bits; the row stores only their SHA-256, so a database dump opens no session.
// A session ends at its absolute expiry (from sign-in), after the idle timeout (from its last use),
// when the person signs out (here or everywhere), or when their access ends (suspension, removal:
// endAllFor, run inside that writing transaction). A sign-in always starts a new session with a new
// cookie (rotation against fixation); the previous one, if any, is ended.
import type { Db, DbOrTx } from "../../../storage";
import type { Clock } from "../../../shared/clock";
import type { IdGenerator } from "../../../shared/ids";
import { sha256Base64url } from "../../../shared/crypto";

export interface SessionSettings {
  /** Seconds of inactivity after which a session ends. */
  idleSeconds: number;
  /** Seconds after sign-in after which a session ends, however active. */
  maxAgeSeconds: number;
}

export interface BrowserSession {
  id: string;
  tenantId: string;
  userId: string;
  /** Ids of the factors used (src/modules/signin/factors), in the order they were used. */
  factors: string[];
  authTime: Date;
  expiresAt: Date;
}

/** What a sign-in hands to the HTTP layer: the cookie value (shown once) and how long it lives. */
export interface StartedSession {
  session: BrowserSession;
  cookie: string;
  maxAgeSeconds: number;
}

/** Touching lastSeenAt on every read would write on every page; a minute's precision is enough. */
const TOUCH_EVERY_MS = 60_000;

export class BrowserSessions {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    readonly settings: SessionSettings,
  ) {}

  /** A new session for a completed sign-in; ends `previous` (the browser's former session) in the same transaction. */
  async start(input: { tenantId: string; userId: string; factors: readonly string[]; previousCookie?: string }): Promise<StartedSession> {
    const cookie = this.ids.token(32);
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + this.settings.maxAgeSeconds * 1000);
    const row = await this.db.$transaction(async (tx) => {
      if (input.previousCookie) await tx.browserSession.updateMany({ where: { tokenHash: sha256Base64url(input.previousCookie), endedAt: null }, data: { endedAt: now } });
      return tx.browserSession.create({
        data: { id: this.ids.uuid(), tokenHash: sha256Base64url(cookie), tenantId: input.tenantId, userId: input.userId, factors: [...new Set(input.factors)], authTime: now, createdAt: now, lastSeenAt: now, expiresAt },
      });
    });
    return { session: view(row), cookie, maxAgeSeconds: this.settings.maxAgeSeconds };
  }

  /** The live session of this cookie value, or null (unknown, ended, idle too long, past its end). */
  async find(cookie: string | undefined): Promise<BrowserSession | null> {
    if (!cookie || cookie.length > 128) return null;
    return this.live(await this.db.browserSession.findUnique({ where: { tokenHash: sha256Base64url(cookie) } }));
  }

  /** The session by id while it is live (a page's ticket names the session that showed it). */
  async findById(id: string): Promise<BrowserSession | null> {
    return this.live(await this.db.browserSession.findUnique({ where: { id } }));
  }

  private async live(row: Awaited<ReturnType<Db["browserSession"]["findUnique"]>>): Promise<BrowserSession | null> {
    const now = this.clock.now();
    if (!row || row.endedAt !== null || row.expiresAt <= now) return null;
    if (row.lastSeenAt.getTime() + this.settings.idleSeconds * 1000 <= now.getTime()) return null;
    if (now.getTime() - row.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
      await this.db.browserSession.updateMany({ where: { id: row.id, endedAt: null }, data: { lastSeenAt: now } });
    }
    return view(row);
  }

  /** Ends the session of this cookie (sign-out of this browser); false when there was none. */
  async end(cookie: string | undefined): Promise<boolean> {
    if (!cookie) return false;
    const { count } = await this.db.browserSession.updateMany({ where: { tokenHash: sha256Base64url(cookie), endedAt: null }, data: { endedAt: this.clock.now() } });
    return count > 0;
  }

  /** Ends one session by id (RP-initiated logout names it through the ID token's `sid`). */
  async endById(id: string): Promise<boolean> {
    const { count } = await this.db.browserSession.updateMany({ where: { id, endedAt: null }, data: { endedAt: this.clock.now() } });
    return count > 0;
  }

  /**
   * Ends every session of a user in a workspace (sign-out everywhere; a suspension or a removal,
   * inside that transaction). Returns how many were live.
   */
  async endAllFor(tx: DbOrTx, tenantId: string, userId: string): Promise<number> {
    const { count } = await tx.browserSession.updateMany({ where: { tenantId, userId, endedAt: null }, data: { endedAt: this.clock.now() } });
    return count;
  }

  /** Sign-out everywhere: every live session of the person. */
  async endEverywhere(tenantId: string, userId: string): Promise<number> {
    return this.endAllFor(this.db, tenantId, userId);
  }

  /** Deletes rows past their absolute end (they can never be used again), by index. */
  async prune(): Promise<number> {
    return (await this.db.browserSession.deleteMany({ where: { expiresAt: { lt: this.clock.now() } } })).count;
  }
}

function view(row: { id: string; tenantId: string; userId: string; factors: unknown; authTime: Date; expiresAt: Date }): BrowserSession {
  return { id: row.id, tenantId: row.tenantId, userId: row.userId, factors: (row.factors as string[]) ?? [], authTime: row.authTime, expiresAt: row.expiresAt };
}
