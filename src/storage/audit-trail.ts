// Appending to the audit trail: one event per unit of work, one SQL statement, in the writing
// transaction (docs/decisions/0038-audit-trail.md). The unit of work (unit-of-work.ts) hands over
// what it captured; this file turns it into the event (actor and address from the request context,
// action and target from the first change or from the service's own words) and chains it.
//
// The chain stays linear with concurrent writers:
// - PostgreSQL (several instances): one statement upserts the chain's head row (AuditChain), which
//   row-locks it until commit, computes the new hash from the locked head in SQL (sha256()), and
//   inserts the event from what that returns. A second writer of the same workspace waits on the
//   lock, then sees the committed head (READ COMMITTED re-reads a locked row after the wait).
// - SQLite (one server; the CLI may write too): write transactions are serial by construction.
//   The head of each chain is remembered after each commit, so the append is one INSERT; the
//   unique (chain, seq) index refuses it if another process appended meanwhile (the CLI), and the
//   head is then read again and the insert retried, inside the same transaction.
import { randomUUID } from "node:crypto";
import type { Clock } from "../shared/clock";
import { systemClock } from "../shared/clock";
import { currentContext, type AuditActor, ANONYMOUS_ACTOR, SYSTEM_ACTOR } from "../shared/request-context";
import { canonicalJson } from "../sdk/definition-hash";
import { MAX_CHANGES, type AuditCapture } from "./audit-capture";
import { GENESIS_HASH, chainHash, chainOf, contentHash, type AuditContent } from "./audit-hash";
import { isUniqueViolation } from "./prisma-errors";

type AnyClient = Record<string, any>;

/** What a service says about the event of its unit of work (modules/audit's recordAuditEvent). */
export interface AuditEventInput {
  /** `resource_server.secret_rotated`, `signin.failed`: replaces the action derived from the first change. */
  action: string;
  /** Default "success". */
  outcome?: "success" | "failure";
  target?: { type: string; id: string | null };
  /** The event's workspace; null for the installation chain. Default: the changed rows', else the caller's. */
  workspaceId?: string | null;
  /** Default: the request context's caller (the system outside a request). */
  actor?: AuditActor;
  /** Facts about the event (a reason, counts). Never a secret; text is bounded. */
  detail?: Record<string, unknown>;
}

export interface AppendedEvent {
  id: string;
  chain: string;
  seq: number;
  hash: string;
}

const MAX_HEADS = 10_000;

export class AuditTrail {
  private clock: Clock = systemClock;
  /** SQLite: each chain's head after the last commit of this process. */
  private readonly heads = new Map<string, { seq: number; hash: string }>();
  private readonly listeners = new Set<(appended: AppendedEvent) => void>();
  private suspended = false;

  constructor(readonly dialect: "sqlite" | "postgresql") {}

  /**
   * Writes of this client append nothing until resumed. Only for a database whose schema predates
   * the audit trail (test/migrations.test.ts writes fixtures into an old schema, then migrates):
   * the application never calls it.
   */
  suspendForOlderSchema(): () => void {
    this.suspended = true;
    return () => void (this.suspended = false);
  }

  /** The clock events are stamped with (the services' clock: tests move it). */
  useClock(clock: Clock): void {
    this.clock = clock;
  }

  /** Told after commit of every event this process appended (the webhook fan-out and log stream). */
  onAppended(listener: (appended: AppendedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The event of a unit of work, or undefined when it changed nothing audited and named no event. */
  compose(capture: AuditCapture, explicit: AuditEventInput | undefined): AuditContent | undefined {
    const first = capture.primary();
    if ((!first && !explicit) || this.suspended) return undefined;
    const context = currentContext();
    const actor = explicit?.actor ?? context?.actor ?? (context ? ANONYMOUS_ACTOR : SYSTEM_ACTOR);
    const tenantId =
      explicit?.workspaceId !== undefined ? explicit.workspaceId : (capture.changes.find((c) => c.tenantId !== null)?.tenantId ?? context?.workspaceId ?? null);
    // A change of another workspace's row (a dcr client's connections) is not this workspace's to read.
    const mine = capture.changes.filter((c) => c.tenantId === null || c.tenantId === tenantId);
    const summary: Record<string, unknown> = {};
    if (mine.length > 0) summary.changes = mine.slice(0, MAX_CHANGES).map(({ tenantId: _t, ...c }) => c);
    if (mine.length > MAX_CHANGES) summary.more_changes = mine.length - MAX_CHANGES;
    if (capture.changes.length > mine.length) summary.other_workspaces = capture.changes.length - mine.length;
    if (explicit?.detail) summary.detail = explicit.detail;
    return {
      id: randomUUID(),
      tenantId,
      occurredAt: this.clock.now(),
      actorType: actor.type,
      actorId: actor.id,
      address: context?.address ?? (actor.type === "cli" ? "local" : null),
      action: explicit?.action ?? `${first!.entity}.${first!.op}`,
      targetType: explicit?.target?.type ?? first?.entity ?? null,
      targetId: explicit?.target ? explicit.target.id : (first?.id ?? null),
      outcome: explicit?.outcome ?? "success",
      requestId: context?.requestId ?? null,
      summary: canonicalJson(summary),
    };
  }

  /** Appends `event` in transaction `tx`: one statement (see the top of this file). */
  async append(tx: AnyClient, event: AuditContent): Promise<AppendedEvent> {
    const chain = chainOf(event.tenantId);
    const content = contentHash(event);
    return this.dialect === "postgresql" ? this.appendPg(tx, chain, event, content) : this.appendSqlite(tx, chain, event, content);
  }

  /** After commit: remember the head (SQLite) and tell the consumers. */
  committed(appended: AppendedEvent): void {
    if (this.dialect === "sqlite") {
      const known = this.heads.get(appended.chain);
      if (!known || known.seq < appended.seq) {
        this.heads.delete(appended.chain);
        this.heads.set(appended.chain, { seq: appended.seq, hash: appended.hash });
        if (this.heads.size > MAX_HEADS) this.heads.delete(this.heads.keys().next().value!);
      }
    }
    for (const listener of this.listeners) listener(appended);
  }

  private async appendPg(tx: AnyClient, chain: string, e: AuditContent, content: string): Promise<AppendedEvent> {
    const rows = (await tx.$queryRawUnsafe(
      APPEND_PG,
      chain,
      GENESIS_HASH,
      content,
      e.occurredAt.toISOString(),
      e.id,
      e.tenantId,
      e.actorType,
      e.actorId,
      e.address,
      e.action,
      e.targetType,
      e.targetId,
      e.outcome,
      e.requestId,
      e.summary,
    )) as { seq: number; hash: string }[];
    const row = rows[0]!;
    return { id: e.id, chain, seq: Number(row.seq), hash: row.hash };
  }

  private async appendSqlite(tx: AnyClient, chain: string, e: AuditContent, content: string): Promise<AppendedEvent> {
    let head = this.heads.get(chain) ?? (await readHead(tx, chain));
    for (let attempt = 1; ; attempt++) {
      const seq = head.seq + 1;
      const hash = chainHash(head.hash, seq, content);
      try {
        await tx.auditEvent.create({ data: { ...e, chain, seq, prevHash: head.hash, hash }, select: { id: true } });
        return { id: e.id, chain, seq, hash };
      } catch (err) {
        // Another process (the CLI) appended to this chain since this one last did: read the head.
        if (!isUniqueViolation(err) || attempt === 3) throw err;
        head = await readHead(tx, chain);
      }
    }
  }
}

/** A chain's head as stored: its newest event, else its newest checkpoint (every event pruned), else the genesis. */
export async function readHead(tx: AnyClient, chain: string): Promise<{ seq: number; hash: string }> {
  const last = await tx.auditEvent.findFirst({ where: { chain }, orderBy: { seq: "desc" }, select: { seq: true, hash: true } });
  if (last) return last;
  const checkpoint = await tx.auditCheckpoint.findFirst({ where: { chain }, orderBy: { seq: "desc" }, select: { seq: true, hash: true } });
  return checkpoint ?? { seq: 0, hash: GENESIS_HASH };
}

// $1 chain, $2 genesis hash, $3 content hash, $4 time, $5.. the event's columns.
const APPEND_PG = `
WITH head AS (
  INSERT INTO "AuditChain" ("chain", "seq", "prevHash", "hash", "updatedAt")
  VALUES ($1::text, 1, $2::text, encode(sha256(convert_to($2::text || '|1|' || $3::text, 'UTF8')), 'hex'), ($4::timestamptz AT TIME ZONE 'UTC'))
  ON CONFLICT ("chain") DO UPDATE SET
    "seq" = "AuditChain"."seq" + 1,
    "prevHash" = "AuditChain"."hash",
    "hash" = encode(sha256(convert_to("AuditChain"."hash" || '|' || ("AuditChain"."seq" + 1)::text || '|' || $3::text, 'UTF8')), 'hex'),
    "updatedAt" = EXCLUDED."updatedAt"
  RETURNING "seq", "prevHash", "hash"
)
INSERT INTO "AuditEvent" ("id", "chain", "seq", "tenantId", "occurredAt", "actorType", "actorId", "address", "action", "targetType", "targetId", "outcome", "requestId", "summary", "prevHash", "hash")
SELECT $5::text, $1::text, head."seq", $6::text, ($4::timestamptz AT TIME ZONE 'UTC'), $7::text, $8::text, $9::text, $10::text, $11::text, $12::text, $13::text, $14::text, $15::text, head."prevHash", head."hash"
FROM head
RETURNING "seq", "hash"`;

