// Sends webhook deliveries (the outbox rows the fan-out wrote): claims due ones, signs (Standard
// Webhooks, signing.ts), POSTs through the outbound guard, and records the outcome.
//
// Claiming is a conditional update (status, attempts and lease as read): of two instances reading
// the same due row, one update matches and the other's changes nothing, so each attempt is made
// once (docs/decisions/0039-webhooks-outbox.md). A claim is a lease (`lockedUntil`): a delivery
// whose instance died while sending is claimed again once the lease is over, so a kill -9 loses
// nothing (the receiver may then see that message twice, with the same webhook-id).
//
// Outcome: 2xx delivered; anything else is a failed attempt, retried with backoff and jitter
// (retry-policy.ts) until the last one, after which the delivery is dead (the dead-letter list).
// Per endpoint, failures in a row open its circuit: no attempt until it half-opens, then one probe
// per round; a success closes it.
//
// When it runs: woken by the fan-out (new deliveries), by redeliveries and test messages, and, after
// each round, at the time the next retry, lease or circuit is due (one timer). Idle, it reads
// nothing. On PostgreSQL it also looks every TOOLGATE_WEBHOOK_POLL_MS for what another instance
// left behind when it died.
import type { Db } from "../../storage";
import type { Clock } from "../../shared/clock";
import { postBody } from "../../shared/outbound/post-body";
import { CIRCUIT_FAILURES, CIRCUIT_OPEN_MS, retryDelayMs, type RetryPolicy } from "./retry-policy";
import { webhookHeaders } from "./signing";
import { ALLOW_PRIVATE_VARIABLE, type SubscriptionService } from "./subscription-service";
import { messageIdOf } from "./views";
import { SerialJob } from "../../shared/serial-job";

export interface DispatchOptions extends RetryPolicy {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  ca?: string;
}

/** Deliveries sent at once by one instance. */
const PARALLEL = 8;
const CLAIM_BATCH = 32;
/** The shortest wait between rounds woken by the schedule (not by new deliveries). */
const MIN_PAUSE_MS = 25;

export class WebhookDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private wakeTimer: NodeJS.Timeout | undefined;
  private wakeAt = Number.POSITIVE_INFINITY;
  private started = false;
  private readonly rounds = new SerialJob(async () => {
    const attempted = await this.round();
    if (this.started) await this.scheduleNext();
    return attempted;
  });

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly random: () => number,
    private readonly subscriptions: Pick<SubscriptionService, "secretOf">,
    private readonly opts: DispatchOptions,
    private readonly onError: (e: unknown) => void,
  ) {}

  /** Sends what is due now; resolves with how many attempts were made (one round at a time per process). */
  runOnce(): Promise<number> {
    return this.rounds.run();
  }

  private async round(): Promise<number> {
    const now = this.clock.now();
    const due = await this.db.webhookDelivery.findMany({
      where: {
        OR: [
          { status: "pending", nextAttemptAt: { lte: now } },
          { status: "sending", lockedUntil: { lt: now } },
        ],
        subscription: { status: "active", OR: [{ circuitOpenUntil: null }, { circuitOpenUntil: { lte: now } }] },
      },
      include: { subscription: true },
      orderBy: [{ nextAttemptAt: "asc" }, { id: "asc" }],
      take: CLAIM_BATCH,
    });
    // A half-open circuit lets one probe through per round.
    const probing = new Set<string>();
    const work = due.filter((d) => {
      if (d.subscription.consecutiveFailures < CIRCUIT_FAILURES) return true;
      if (probing.has(d.subscriptionId)) return false;
      probing.add(d.subscriptionId);
      return true;
    });
    let attempted = 0;
    for (let i = 0; i < work.length; i += PARALLEL) {
      const results = await Promise.all(work.slice(i, i + PARALLEL).map((d) => this.attempt(d).catch((e) => (this.onError(e), false))));
      attempted += results.filter(Boolean).length;
    }
    return attempted;
  }

  /** Claims one delivery and sends it; false when another instance claimed it first. */
  private async attempt(d: Awaited<ReturnType<Db["webhookDelivery"]["findMany"]>>[number] & { subscription: { id: string; url: string; secretEnc: string; consecutiveFailures: number } }): Promise<boolean> {
    const now = this.clock.now();
    const claimed = await this.db.webhookDelivery.updateMany({
      where: { id: d.id, status: d.status, attempts: d.attempts, lockedUntil: d.lockedUntil },
      data: { status: "sending", lockedUntil: new Date(now.getTime() + this.opts.timeoutMs * 2 + 1000) },
    });
    if (claimed.count === 0) return false;
    const attempt = d.attempts + 1;
    const result = await postBody(
      new URL(d.subscription.url),
      d.payload,
      webhookHeaders(this.subscriptions.secretOf(d.subscription), messageIdOf(d.id), now, d.payload),
      { allowPrivateNetworks: this.opts.allowPrivateNetworks, allowVariable: ALLOW_PRIVATE_VARIABLE, timeoutMs: this.opts.timeoutMs, ca: this.opts.ca },
      () => this.clock.now(),
    );
    const at = this.clock.now();
    if (result.ok) {
      await this.db.webhookDelivery.update({ where: { id: d.id }, data: { status: "delivered", attempts: attempt, deliveredAt: at, lastStatus: result.status, lastError: null, lockedUntil: null } });
      await this.db.webhookSubscription.updateMany({ where: { id: d.subscriptionId, consecutiveFailures: { gt: 0 } }, data: { consecutiveFailures: 0, circuitOpenUntil: null } });
      return true;
    }
    const dead = attempt >= this.opts.maxAttempts;
    await this.db.webhookDelivery.update({
      where: { id: d.id },
      data: {
        status: dead ? "dead" : "pending",
        attempts: attempt,
        nextAttemptAt: dead ? at : new Date(at.getTime() + retryDelayMs(this.opts, attempt, this.random(), result.retryAfterMs)),
        lastStatus: result.status,
        lastError: result.reason,
        lockedUntil: null,
      },
    });
    const failures = d.subscription.consecutiveFailures + 1;
    await this.db.webhookSubscription.update({
      where: { id: d.subscriptionId },
      data: { consecutiveFailures: { increment: 1 }, ...(failures >= CIRCUIT_FAILURES ? { circuitOpenUntil: new Date(at.getTime() + CIRCUIT_OPEN_MS) } : {}) },
    });
    return true;
  }

  /**
   * The earliest time something becomes due: a retry, a lease running out, a circuit half-opening.
   * No lower bound on those times: what came due while the round ran (after its query read the rows)
   * must wake the next round too, or nothing would until the next write. A lease that ran out in
   * that moment was lost this way on a loaded machine (a kill -9 during a delivery, restarted just
   * as the lease ended). Rows held back by an open circuit count from the circuit's time.
   */
  private async scheduleNext(): Promise<void> {
    const now = this.clock.now();
    const deliverable = { subscription: { status: "active", OR: [{ circuitOpenUntil: null }, { circuitOpenUntil: { lte: now } }] } };
    const [retry, lease, circuit] = await Promise.all([
      this.db.webhookDelivery.findFirst({ where: { status: "pending", ...deliverable }, orderBy: { nextAttemptAt: "asc" }, select: { nextAttemptAt: true } }),
      this.db.webhookDelivery.findFirst({ where: { status: "sending", lockedUntil: { not: null }, ...deliverable }, orderBy: { lockedUntil: "asc" }, select: { lockedUntil: true } }),
      this.db.webhookSubscription.findFirst({ where: { status: "active", circuitOpenUntil: { gt: now } }, orderBy: { circuitOpenUntil: "asc" }, select: { circuitOpenUntil: true } }),
    ]);
    const times = [retry?.nextAttemptAt, lease?.lockedUntil, circuit?.circuitOpenUntil].filter((d): d is Date => d instanceof Date).map((d) => d.getTime());
    // Something already due (more than one round's batch, or come due meanwhile) runs after a short
    // pause, so a row that keeps failing to be claimed cannot spin the loop.
    if (times.length > 0) this.wakeUpAt(Math.max(Math.min(...times) + 1, now.getTime() + MIN_PAUSE_MS));
  }

  private wakeUpAt(at: number): void {
    if (at >= this.wakeAt) return;
    clearTimeout(this.wakeTimer);
    this.wakeAt = at;
    this.wakeTimer = setTimeout(() => {
      this.wakeAt = Number.POSITIVE_INFINITY;
      void this.runOnce().catch(this.onError);
    }, Math.max(0, at - this.clock.now().getTime()));
    this.wakeTimer.unref();
  }

  /** Sends what is due now, then wakes itself when the next thing is due; `pollMs` (PostgreSQL) also looks for another instance's leftovers. */
  start(pollMs: number | undefined): void {
    this.started = true;
    void this.runOnce().catch(this.onError);
    if (pollMs === undefined) return;
    this.timer = setInterval(() => void this.runOnce().catch(this.onError), pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.started = false;
    if (this.timer) clearInterval(this.timer);
    clearTimeout(this.wakeTimer);
    this.timer = undefined;
    await this.rounds.idle();
  }
}
