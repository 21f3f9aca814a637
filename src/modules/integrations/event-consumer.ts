// A reader of the audit trail that must see every event once (docs/decisions/0039-webhooks-outbox.md):
// the webhook fan-out and the log stream. The audit event is the outbox row (it is written by the
// writing transaction itself), and each consumer keeps, per chain, the seq it has handled
// (EventCursor). Appends within a chain are serialised and gap-free (src/storage/audit-trail.ts),
// so "the events after my cursor" is exact: nothing committed can be skipped.
//
// Handling a batch locks the consumer's cursor row first (an update of its stamp), reads the
// events after it, handles them and moves the cursor, in one transaction: two instances on
// PostgreSQL handle each batch once (the second waits, then finds the cursor moved); a crash
// before commit leaves the cursor where it was, and the batch is handled again after restart.
//
// What to look at: this process's own appends are announced after commit (AuditTrail.onAppended);
// reconcile() finds every chain whose head is beyond the cursor (at start, periodically on
// PostgreSQL for another instance's crash, and when SQLite reports a write of another process).
import { isUniqueViolation, type AppendedEvent, type Db, type DbOrTx } from "../../storage";
import type { Clock } from "../../shared/clock";
import { toAuditEventView, type AuditEventView } from "../audit";
import { SerialJob } from "../../shared/serial-job";

const BATCH = 100;
/** Chains read per reconcile query. */
const RECONCILE_PAGE = 500;

export interface ConsumerHandler {
  /** Handles a batch of one chain's events in the consumer's transaction (before the cursor moves). */
  handle(tx: DbOrTx, chain: string, events: AuditEventView[]): Promise<void>;
  /** Whether the chain needs reading at all now (false: it is left alone, its cursor where it is). */
  wants?(db: DbOrTx, chain: string): Promise<boolean>;
  /** After the batch's transaction committed (what it wrote is visible to others from now on). */
  committed?(): void;
}

export class EventConsumer {
  private readonly pending = new Map<string, number>();
  private readonly runs = new SerialJob(() => this.drainNow());

  constructor(
    readonly name: string,
    private readonly db: Db,
    private readonly dialect: "sqlite" | "postgresql",
    private readonly clock: Clock,
    private readonly handler: ConsumerHandler,
    private readonly onError: (e: unknown) => void,
  ) {}

  /** An event this process committed: read its chain soon. */
  appended(e: AppendedEvent): void {
    this.pending.set(e.chain, Math.max(this.pending.get(e.chain) ?? 0, e.seq));
    void this.drain();
  }

  /**
   * Every chain whose head is beyond this consumer's cursor. The comparison runs in SQL, a page of
   * chains at a time, and answers only the chains that are behind: the work that reaches this
   * process does not grow with the number of workspaces (DESIGN "Hot paths").
   */
  async reconcile(): Promise<void> {
    for (let after = ""; ; ) {
      const behind = await this.chainsBehind(after);
      for (const h of behind) this.pending.set(h.chain, Math.max(this.pending.get(h.chain) ?? 0, Number(h.seq)));
      if (behind.length < RECONCILE_PAGE) break;
      after = behind.at(-1)!.chain;
    }
    await this.drain();
  }

  /** One page of chains (in order, after `after`) whose head is beyond the cursor. */
  private chainsBehind(after: string): Promise<{ chain: string; seq: number | bigint }[]> {
    // PostgreSQL keeps each chain's head in AuditChain; on SQLite the head is the chain's last
    // event (the unique (chain, seq) index answers MAX per chain).
    return this.dialect === "postgresql"
      ? this.db.$queryRaw`SELECT h."chain", h."seq" FROM "AuditChain" h
          LEFT JOIN "EventCursor" c ON c."consumer" = ${this.name} AND c."chain" = h."chain"
          WHERE h."chain" > ${after} AND h."seq" > COALESCE(c."seq", 0)
          ORDER BY h."chain" LIMIT ${RECONCILE_PAGE}`
      : this.db.$queryRaw`SELECT h."chain" AS "chain", h."seq" AS "seq"
          FROM (SELECT "chain", MAX("seq") AS "seq" FROM "AuditEvent" WHERE "chain" > ${after} GROUP BY "chain") h
          LEFT JOIN "EventCursor" c ON c."consumer" = ${this.name} AND c."chain" = h."chain"
          WHERE h."seq" > COALESCE(c."seq", 0)
          ORDER BY h."chain" LIMIT ${RECONCILE_PAGE}`;
  }

  /** Handles every pending chain; resolves when none is left (concurrent calls share one run). */
  drain(): Promise<void> {
    return this.runs.run();
  }

  private async drainNow(): Promise<void> {
    for (const [chain, seq] of [...this.pending]) {
      try {
        await this.consume(chain);
      } catch (e) {
        this.onError(e); // the chain comes back with the next append or reconcile()
      }
      if (this.pending.get(chain) === seq) this.pending.delete(chain);
    }
  }

  /** Handles the chain's events after the cursor, batch by batch; answers the seq reached. */
  async consume(chain: string): Promise<number> {
    // A chain nobody consumes now (a workspace without webhooks) costs one query per append.
    if (this.handler.wants && !(await this.handler.wants(this.db, chain))) return 0;
    await this.ensureCursor(chain);
    for (;;) {
      const { reached, more } = await this.db.$transaction(async (tx) => {
        // The lock: one consumer of this name works on this chain at a time, anywhere.
        await tx.eventCursor.update({ where: { consumer_chain: { consumer: this.name, chain } }, data: { updatedAt: this.clock.now() } });
        const cursor = await tx.eventCursor.findUniqueOrThrow({ where: { consumer_chain: { consumer: this.name, chain } } });
        const rows = await tx.auditEvent.findMany({ where: { chain, seq: { gt: cursor.seq } }, orderBy: { seq: "asc" }, take: BATCH });
        if (rows.length === 0) return { reached: cursor.seq, more: false };
        await this.handler.handle(tx, chain, rows.map(toAuditEventView));
        const to = rows.at(-1)!.seq;
        await tx.eventCursor.update({ where: { consumer_chain: { consumer: this.name, chain } }, data: { seq: to } });
        return { reached: to, more: rows.length === BATCH };
      });
      this.handler.committed?.();
      if (!more) return reached;
    }
  }

  /** The cursor row exists before it is locked (created at 0 by whichever instance gets there first). */
  private async ensureCursor(chain: string): Promise<void> {
    const key = { consumer_chain: { consumer: this.name, chain } };
    if (await this.db.eventCursor.findUnique({ where: key, select: { seq: true } })) return;
    try {
      await this.db.eventCursor.create({ data: { consumer: this.name, chain, seq: 0, updatedAt: this.clock.now() } });
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
    }
  }
}
