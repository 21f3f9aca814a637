// Security events of the hot paths, counted instead of written per request (docs/decisions/
// 0038-audit-trail.md): tokens issued, tokens refused, clients and resource servers that failed
// to authenticate, sign-ins refused by the throttle. count() is O(1) memory work on the request
// path; flush() (every TOOLGATE_AUDIT_FLUSH_SECONDS and at shutdown) appends one event per
// (action, workspace, client, grant, reason) seen since the last flush, with the count, the first
// and last time and a few of the addresses. The number of distinct keys between two flushes is
// bounded: beyond it a spray of made-up client ids lands in one "other" entry per action.
// A crash loses at most one flush interval of counts (docs/audit-and-integrations.md).
import { recordAuditEvent, type Db } from "../../storage";
import type { Clock } from "../../shared/clock";
import { ANONYMOUS_ACTOR, type AuditActor } from "../../shared/request-context";
import { PeriodicFlush } from "../../shared/periodic-flush";
import { unsafeText } from "../../shared/input-safety";

export interface CountedEvent {
  action: string;
  outcome: "success" | "failure";
  /** Known on the request path (an authenticated client's workspace); else resolved at flush from clientId. */
  workspaceId?: string | null;
  /** The OAuth client_id involved (as sent, for a failed authentication). */
  clientId?: string | null;
  /** The resource server that authenticated (or failed to), for introspection. */
  resourceServerId?: string | null;
  grantType?: string | null;
  /** The OAuth error code and its internal reason (never a secret). */
  reason?: string | null;
  address?: string | null;
}

interface Entry {
  event: CountedEvent;
  count: number;
  firstAt: Date;
  lastAt: Date;
  addresses: Set<string>;
}

/** Distinct keys kept between two flushes. */
export const MAX_COUNTER_KEYS = 5_000;
const MAX_ADDRESSES = 10;
const MAX_TEXT = 200;

const clip = (v: string | null | undefined) => (v === undefined || v === null ? null : v.length > MAX_TEXT ? `${v.slice(0, MAX_TEXT)}…` : v);

/**
 * What a refused request sent is counted as sent, but text no database can store (a NUL, a lone
 * surrogate: src/shared/input-safety.ts) is kept escaped as JSON writes it, so the event can be
 * written and still shows what came.
 */
function storable(v: string | null | undefined): string | null | undefined {
  if (typeof v !== "string" || !unsafeText(v)) return v;
  return JSON.stringify(v.slice(0, MAX_TEXT)).slice(1, -1);
}

export class SecurityCounters {
  private entries = new Map<string, Entry>();
  private readonly batches = new PeriodicFlush(() => this.flushNow());

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** The workspace of a client_id (its registry entry), null when it has none or is unknown. */
    private readonly workspaceOfClient: (clientId: string) => Promise<string | null>,
    private readonly workspaceOfServer: (resourceServerId: string) => Promise<string | null>,
  ) {}

  /**
   * A token issued (the token endpoint's success path, once per request): the same as count()
   * without its general work: an authenticated client's id and a grant it was served are
   * storable, and their key needs two parts.
   */
  countIssued(action: string, clientId: string, workspaceId: string | null, grantType: string): void {
    const key = `${action} ${clientId} ${grantType}`;
    const entry = this.entries.get(key);
    if (entry) {
      entry.count++;
      entry.lastAt = this.clock.now();
      return;
    }
    if (this.entries.size >= MAX_COUNTER_KEYS) return this.count({ action, outcome: "success", clientId, workspaceId, grantType });
    const now = this.clock.now();
    this.entries.set(key, { event: { action, outcome: "success", clientId, workspaceId, grantType }, count: 1, firstAt: now, lastAt: now, addresses: new Set() });
  }

  count(counted: CountedEvent): void {
    let e: CountedEvent = {
      ...counted,
      clientId: storable(counted.clientId),
      resourceServerId: storable(counted.resourceServerId),
      grantType: storable(counted.grantType),
      reason: storable(counted.reason),
      address: storable(counted.address),
    };
    let key = [e.action, e.workspaceId ?? "", e.clientId ?? "", e.resourceServerId ?? "", e.grantType ?? "", e.reason ?? ""].join("\u0000");
    let entry = this.entries.get(key);
    if (!entry && this.entries.size >= MAX_COUNTER_KEYS) {
      // Too many distinct keys until the next flush: one bucket per action for the rest.
      e = { action: e.action, outcome: e.outcome, workspaceId: null, reason: "other (too many distinct keys before the next flush)" };
      key = `${e.action}\u0000other`;
      entry = this.entries.get(key);
    }
    const now = this.clock.now();
    if (!entry) this.entries.set(key, (entry = { event: e, count: 0, firstAt: now, lastAt: now, addresses: new Set() }));
    entry.count++;
    entry.lastAt = now;
    if (e.address && entry.addresses.size < MAX_ADDRESSES) entry.addresses.add(e.address);
  }

  /** Appends one event per counted key; flushes run one after another. */
  flush(): Promise<void> {
    return this.batches.flush();
  }

  private async flushNow(): Promise<void> {
    if (this.entries.size === 0) return;
    const batch = [...this.entries.values()];
    this.entries = new Map();
    let failed: unknown;
    for (const entry of batch) await this.write(entry).catch((e) => (failed ??= e)); // one bad entry does not hold back the others
    if (failed !== undefined) throw failed;
  }

  private async write({ event: e, count, firstAt, lastAt, addresses }: Entry): Promise<void> {
    const workspaceId =
      e.workspaceId !== undefined && e.workspaceId !== null
        ? e.workspaceId
        : e.clientId
          ? await this.workspaceOfClient(e.clientId)
          : e.resourceServerId
            ? await this.workspaceOfServer(e.resourceServerId)
            : null;
    const actor: AuditActor = e.clientId ? { type: "client", id: clip(e.clientId) } : e.resourceServerId ? { type: "resource_server", id: e.resourceServerId } : ANONYMOUS_ACTOR;
    const target = e.clientId ? { type: "client", id: clip(e.clientId) } : e.resourceServerId ? { type: "resource_server", id: e.resourceServerId } : undefined;
    await recordAuditEvent(this.db, {
      action: e.action,
      outcome: e.outcome,
      workspaceId,
      actor,
      target,
      detail: {
        count,
        first_at: firstAt.toISOString(),
        last_at: lastAt.toISOString(),
        ...(e.grantType ? { grant_type: clip(e.grantType) } : {}),
        ...(e.reason ? { reason: clip(e.reason) } : {}),
        ...(addresses.size > 0 ? { addresses: [...addresses].sort() } : {}),
      },
    });
  }

  start(intervalMs: number, onError: (e: unknown) => void): void {
    this.batches.start(intervalMs, onError);
  }

  stop(): Promise<void> {
    return this.batches.stop();
  }
}
