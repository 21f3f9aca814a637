// The compiled runtime policy of every live server, held in memory as the exact JSON body that
// GET .../sdk-policy answers, with its ETag: the hot path does a map lookup and writes a string
// (no database query, no JSON.stringify per request; notes/performance.md).
//
// Invalidation: every write that changes a policy (mappings, scopes, tools, activation, rescans,
// drift events and their dismissal, deletion, rotation) bumps the `policies` or `resource_servers`
// cache version in its transaction and calls notifyLocal after commit, which reloads this cache
// before the write's response is sent; other instances reload on their next version poll.
// A reload is a full rebuild in three queries; concurrent triggers are coalesced so a burst of
// writes costs at most one extra rebuild, and a rebuild never starts from data older than the
// trigger that asked for it.
import { createHash } from "node:crypto";
import type { Db } from "../../../storage";
import type { CacheVersions } from "../../../storage";
import { coalescedReload } from "../../../shared/coalesced-reload";
import { toDriftEventView, DRIFT_ORDER, type DriftEventView } from "../drift/views";
import { compileScopeMatrix, type ScopeMatrix } from "./compile";

export interface PolicyDocument {
  rs_id: string;
  state: string;
  /** The scan generation the tool inventory comes from (scan_generation of the server). */
  generation: number;
  /** True only once the server is ready; before that the runtime must deny every tool. */
  policy_complete: boolean;
  reason?: string;
  scope_matrix: ScopeMatrix;
  drift_events: DriftEventView[];
}

export interface CompiledPolicy {
  /** The response body, serialized once (and encoded once: `bytes`). */
  body: string;
  bytes: Buffer;
  /** Strong ETag of `body`, quoted as HTTP wants it. */
  etag: string;
  document: PolicyDocument;
}

export function notReadyReason(state: string): string {
  return `the server is not activated yet (state ${state}); deny every tool until the policy is complete`;
}

export function compileDocument(doc: PolicyDocument): CompiledPolicy {
  const body = JSON.stringify(doc);
  const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 32)}"`;
  return { body, bytes: Buffer.from(body, "utf8"), etag, document: doc };
}

export class PolicyCache {
  private byId = new Map<string, CompiledPolicy>();

  constructor(
    private readonly db: Db,
    versions: CacheVersions,
  ) {
    versions.on("policies", () => this.reload());
    versions.on("resource_servers", () => this.reload());
  }

  get(rsId: string): CompiledPolicy | undefined {
    return this.byId.get(rsId);
  }

  /** Rebuilds every policy (coalesced: a burst of writes shares one follow-up rebuild). */
  readonly reload = coalescedReload(() => this.rebuild());

  private async rebuild(): Promise<void> {
    const servers = await this.db.resourceServer.findMany({ where: { deletedAt: null }, select: { id: true, state: true, scanGeneration: true } });
    const tools = await this.db.tool.findMany({
      where: { resourceServer: { deletedAt: null, state: "ready" } },
      select: { resourceServerId: true, name: true, isPublic: true, scopes: { select: { scope: { select: { key: true } } } } },
    });
    const events = await this.db.driftEvent.findMany({ where: { dismissedAt: null, resourceServer: { deletedAt: null } }, orderBy: DRIFT_ORDER });

    const toolsByServer = new Map<string, { name: string; isPublic: boolean; scopeKeys: string[] }[]>();
    for (const t of tools) {
      const list = toolsByServer.get(t.resourceServerId) ?? [];
      list.push({ name: t.name, isPublic: t.isPublic, scopeKeys: t.scopes.map((s) => s.scope.key) });
      toolsByServer.set(t.resourceServerId, list);
    }
    const eventsByServer = new Map<string, DriftEventView[]>();
    for (const e of events) {
      const list = eventsByServer.get(e.rsId) ?? [];
      list.push(toDriftEventView(e));
      eventsByServer.set(e.rsId, list);
    }

    const next = new Map<string, CompiledPolicy>();
    for (const s of servers) {
      const ready = s.state === "ready";
      next.set(
        s.id,
        compileDocument({
          rs_id: s.id,
          state: s.state,
          generation: s.scanGeneration,
          policy_complete: ready,
          ...(ready ? {} : { reason: notReadyReason(s.state) }),
          scope_matrix: ready ? compileScopeMatrix(toolsByServer.get(s.id) ?? []) : {},
          drift_events: eventsByServer.get(s.id) ?? [],
        }),
      );
    }
    this.byId = next;
  }
}
