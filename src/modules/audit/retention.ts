// Audit retention (TOOLGATE_AUDIT_RETENTION_DAYS; 0 keeps every event): each instance, hourly,
// deletes the events older than the retention of every chain, keeping a signed checkpoint of the
// last one deleted (checkpoints.ts). The deletion is itself an event (`audit.pruned`) at the head
// of the chain. Two instances pruning the same chain at once: the checkpoint's unique (chain, seq)
// lets one of them do it; the other's transaction changes nothing.
import { INSTALLATION_CHAIN, isUniqueViolation, pruneAuditChain, recordAuditEvent, type Db } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { SYSTEM_ACTOR } from "../../shared/request-context";
import type { KeyStore } from "../tokens";
import { AUDIT_ACTIONS } from "./actions";
import { signCheckpoint } from "./checkpoints";

const DAY_MS = 86_400_000;

export interface PruneResult {
  chain: string;
  up_to_seq: number;
  events: number;
}

export class AuditRetention {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly keys: KeyStore,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly issuer: string,
    /** Days an event is kept; 0 = forever. */
    private readonly retentionDays: number,
  ) {}

  /** Prunes every chain now; answers what it deleted. */
  async prune(): Promise<PruneResult[]> {
    if (this.retentionDays === 0) return [];
    const cutoff = new Date(this.clock.now().getTime() - this.retentionDays * DAY_MS);
    const old = await this.db.auditEvent.groupBy({ by: ["chain"], where: { occurredAt: { lt: cutoff } }, _max: { seq: true }, _count: { _all: true } });
    const results: PruneResult[] = [];
    for (const group of old) {
      const seq = group._max.seq;
      if (seq === null) continue;
      const done = await this.pruneChain(group.chain, seq);
      if (done) results.push(done);
    }
    return results;
  }

  private async pruneChain(chain: string, seq: number): Promise<PruneResult | undefined> {
    const last = await this.db.auditEvent.findUnique({ where: { chain_seq: { chain, seq } }, select: { hash: true, occurredAt: true } });
    if (!last) return undefined;
    const events = await this.db.auditEvent.count({ where: { chain, seq: { lte: seq } } });
    const now = this.clock.now();
    const jws = await signCheckpoint(this.keys, {
      iss: this.issuer,
      chain,
      seq,
      hash: last.hash,
      occurred_at: last.occurredAt.toISOString(),
      events_pruned: events,
      iat: Math.floor(now.getTime() / 1000),
    });
    try {
      const deleted = await this.db.$transaction(async (tx) => {
        const count = await pruneAuditChain(tx, { id: this.ids.uuid(), chain, seq, hash: last.hash, occurredAt: last.occurredAt, jws, createdAt: now }, events);
        await recordAuditEvent(tx, {
          action: AUDIT_ACTIONS.auditPruned,
          workspaceId: chain === INSTALLATION_CHAIN ? null : chain,
          actor: SYSTEM_ACTOR,
          target: { type: "audit_chain", id: chain },
          detail: { up_to_seq: seq, events: count, retention_days: this.retentionDays },
        });
        return count;
      });
      return { chain, up_to_seq: seq, events: deleted };
    } catch (e) {
      if (isUniqueViolation(e)) return undefined; // another instance checkpointed this seq first
      throw e;
    }
  }

  start(intervalMs: number, onError: (e: unknown) => void): void {
    if (this.retentionDays === 0) return;
    this.timer = setInterval(() => this.prune().catch(onError), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
