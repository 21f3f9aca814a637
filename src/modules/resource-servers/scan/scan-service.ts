// Rescan: claim the server, run the MCP scan outside any transaction, then record the outcome.
//
// Claim: one conditional UPDATE (compare-and-set on last_scan_status) is the lock, so two
// rescans, in one process or in several instances, cannot both run; the loser gets 409. A claim
// older than the scan deadline plus a grace period is abandoned (its process died mid-scan) and
// may be taken over; start-up also releases such claims, so no server stays in_progress forever.
// Record: guarded by the claim's start time, so a scan that was declared abandoned and overtaken
// cannot write over the newer one, and `scan_generation` is bumped by the database, never by us.
// Input: the only client input, mcp_token, is checked before the claim, so a token that could not
// be sent (it is an HTTP header value) is a 400 that changes nothing, not a failed scan.
// Writers: the record transactions lock the server row first (servers.lockForWrite, shared with the
// catalog, the access policy and manifest pushes), so the tools a scan upserts cannot race a
// manifest push or a hand-made tool of the same name.
import type { Db, Tx } from "../../../storage";
import type { Clock } from "../../../shared/clock";
import type { IdGenerator } from "../../../shared/ids";
import type { Logger } from "../../../shared/logger";
import { DomainError, badRequest, conflict } from "../../../shared/errors";
import { type Actor, assertCanWrite } from "../../../shared/actor";
import type { ResourceServerService } from "../resource-server-service";
import { MCP_TOKEN_RULE, mcpTokenSchema } from "../schemas";
import type { ResourceServerView } from "../views";
import { asState, stateAfterScan } from "../state-machine";
import { observeDefinitions } from "../catalog/definition-pins";
import type { DriftRecorder } from "../drift/record";
import { ScanFailure, type ScannedTool, type Scanner } from "./mcp-scanner";

export interface ScanLimits {
  timeoutMs: number;
  maxBytes: number;
  /** TOOLGATE_SCAN_ALLOW_PRIVATE: scans may reach loopback, private and link-local addresses. */
  allowPrivateNetworks: boolean;
}


/**
 * How a rescan that ran ended (operators' figures): the tools were recorded, the MCP server could
 * not be scanned, or the result could not be recorded (overtaken by a newer scan, database error).
 */
export type ScanOutcome = "success" | "failed" | "not_recorded";

/** How long past its deadline an in_progress claim is presumed dead. */
export const ABANDON_GRACE_MS = 30_000;

export class ScanService {
  constructor(
    private readonly db: Db,
    private readonly servers: ResourceServerService,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly logger: Logger,
    private readonly limits: ScanLimits,
    private readonly scanner: Scanner,
    private readonly drift: DriftRecorder,
    private readonly onOutcome: (outcome: ScanOutcome) => void = () => undefined,
  ) {}

  private abandonedBefore(now: Date): Date {
    return new Date(now.getTime() - this.limits.timeoutMs - ABANDON_GRACE_MS);
  }

  async rescan(actor: Actor, rsId: string, input: { mcp_token?: string }): Promise<ResourceServerView> {
    assertCanWrite(actor);
    // Before any state change: every caller (REST, GraphQL) gets the 400, never a failed scan.
    if (input.mcp_token !== undefined && !mcpTokenSchema.safeParse(input.mcp_token).success) throw badRequest(`mcp_token: ${MCP_TOKEN_RULE}`);
    const rs = await this.servers.findLive(this.db, actor, rsId);
    const claimedAt = await this.claim(actor.tenantId, rsId);
    let tools: ScannedTool[];
    try {
      tools = await this.scanner(rs.resourceUrl, {
        timeoutMs: this.limits.timeoutMs,
        maxBytes: this.limits.maxBytes,
        allowPrivateNetworks: this.limits.allowPrivateNetworks,
        bearerToken: input.mcp_token,
      });
    } catch (e) {
      const reason = e instanceof ScanFailure ? e.reason : "internal error while scanning";
      if (!(e instanceof ScanFailure)) this.logger.error({ err: e, rsId }, "scan crashed");
      this.onOutcome("failed");
      await this.recordFailure(rs.tenantId, rsId, claimedAt, reason);
      throw new DomainError("upstream_failed", "the scan of the MCP server failed", { failure_reason: reason });
    }
    try {
      await this.recordSuccess(rs.tenantId, rsId, claimedAt, tools, actor.userId);
      this.onOutcome("success");
    } catch (e) {
      this.onOutcome("not_recorded");
      // Do not leave the claim behind when writing the result itself failed (e.g. the database).
      if (!(e instanceof DomainError)) await this.recordFailure(rs.tenantId, rsId, claimedAt, "internal error while recording the scan result").catch(() => undefined);
      throw e;
    }
    return this.servers.get(actor, rsId);
  }

  /** Compare-and-set: only one caller turns the server in_progress. */
  private async claim(tenantId: string, rsId: string): Promise<Date> {
    const now = this.clock.now();
    const { count } = await this.db.resourceServer.updateMany({
      where: {
        id: rsId,
        tenantId,
        deletedAt: null,
        OR: [{ lastScanStatus: null }, { lastScanStatus: { not: "in_progress" } }, { scanStartedAt: null }, { scanStartedAt: { lt: this.abandonedBefore(now) } }],
      },
      data: { lastScanStatus: "in_progress", scanStartedAt: now },
    });
    if (count === 0) throw conflict("a scan of this server is already running; try again when it has finished");
    return now;
  }

  private claimedBy(rsId: string, claimedAt: Date) {
    return { id: rsId, deletedAt: null, lastScanStatus: "in_progress", scanStartedAt: claimedAt };
  }

  private async recordSuccess(tenantId: string, rsId: string, claimedAt: Date, tools: ScannedTool[], actorId: string): Promise<void> {
    const now = this.clock.now();
    await this.db.$transaction(async (tx) => {
      await this.servers.lockForWrite(tx, tenantId, rsId);
      const owned = await tx.resourceServer.updateMany({
        where: this.claimedBy(rsId, claimedAt),
        data: { scanGeneration: { increment: 1 }, lastScanStatus: "success", scanStartedAt: null, updatedAt: now },
      });
      if (owned.count === 0) throw conflict("this scan was overtaken by a newer scan or the server was deleted; its result was discarded");
      const rs = await tx.resourceServer.findUniqueOrThrow({ where: { id: rsId } });
      const generation = rs.scanGeneration;
      await tx.resourceServer.update({ where: { id: rsId }, data: { lastSuccessfulGeneration: generation, state: stateAfterScan(asState(rs.state), "success") } });
      await this.upsertTools(tx, rs.tenantId, rsId, tools, generation, now);
      // Pins before activation; on a ready server a changed definition is drift (catalog/definition-pins.ts).
      await observeDefinitions(tx, this.drift, { server: { id: rsId, tenantId: rs.tenantId, state: rs.state }, actorId, at: now }, tools);
      // Tools the scan saw before but not now: stale, not deleted (their mappings stay).
      await tx.tool.updateMany({
        where: { resourceServerId: rsId, lastSeenGeneration: { gt: 0, lt: generation }, stale: false },
        data: { stale: true, updatedAt: now },
      });
    });
  }

  private async upsertTools(tx: Tx, tenantId: string, rsId: string, tools: ScannedTool[], generation: number, now: Date): Promise<void> {
    const existing = new Map((await tx.tool.findMany({ where: { resourceServerId: rsId }, select: { id: true, name: true } })).map((t) => [t.name, t.id]));
    const fresh = tools.filter((t) => !existing.has(t.name));
    if (fresh.length > 0) {
      await tx.tool.createMany({
        data: fresh.map((t) => ({ id: this.ids.uuid(), tenantId, resourceServerId: rsId, source: "scan", createdAt: now, ...this.scannedFields(t, generation, now) })),
      });
    }
    // The scan is the authority on what the server says about a tool it lists, whatever the source.
    for (const t of tools) {
      const id = existing.get(t.name);
      if (id) await tx.tool.update({ where: { id }, data: this.scannedFields(t, generation, now) });
    }
  }

  private scannedFields(t: ScannedTool, generation: number, now: Date) {
    return {
      name: t.name,
      title: t.title ?? null,
      description: t.description ?? null,
      inputSchema: (t.inputSchema as object | undefined) ?? undefined,
      annotations: (t.annotations as object | undefined) ?? undefined,
      lastSeenGeneration: generation,
      stale: false,
      updatedAt: now,
    };
  }

  private async recordFailure(tenantId: string, rsId: string, claimedAt: Date, reason: string): Promise<void> {
    await this.db.$transaction(async (tx) => {
      await this.servers.lockForWrite(tx, tenantId, rsId); // the state below is computed from the row read next
      const rs = await tx.resourceServer.findFirst({ where: this.claimedBy(rsId, claimedAt) });
      if (!rs) return; // overtaken: the newer scan owns the outcome
      await tx.resourceServer.updateMany({
        where: this.claimedBy(rsId, claimedAt),
        data: { lastScanStatus: "failed", lastScanError: reason, scanStartedAt: null, state: stateAfterScan(asState(rs.state), "failure"), updatedAt: this.clock.now() },
      });
    });
  }

  /**
   * Start-up: claims left by a process that died mid-scan become failed scans (state per the
   * table). Claims still inside their deadline may belong to another live instance: left alone.
   */
  async releaseAbandonedScans(): Promise<number> {
    const stuck = await this.db.resourceServer.findMany({
      where: { lastScanStatus: "in_progress", OR: [{ scanStartedAt: null }, { scanStartedAt: { lt: this.abandonedBefore(this.clock.now()) } }] },
      select: { id: true, scanStartedAt: true },
    });
    for (const s of stuck) {
      await this.recordFailureUnchecked(s.id, s.scanStartedAt);
    }
    return stuck.length;
  }

  private async recordFailureUnchecked(rsId: string, startedAt: Date | null): Promise<void> {
    const reason = "scan interrupted: the process running it stopped before it finished";
    await this.db.$transaction(async (tx) => {
      const rs = await tx.resourceServer.findFirst({ where: { id: rsId, lastScanStatus: "in_progress", scanStartedAt: startedAt } });
      if (!rs) return;
      await tx.resourceServer.updateMany({
        where: { id: rsId, lastScanStatus: "in_progress", scanStartedAt: startedAt },
        data: { lastScanStatus: "failed", lastScanError: reason, scanStartedAt: null, state: stateAfterScan(asState(rs.state), "failure") },
      });
    });
  }
}
