// The compiled runtime policy of a live server, cached per server as the exact JSON body that
// GET .../sdk-policy answers, with its ETag: a hit is a map lookup and a buffer write (no database
// query, no JSON.stringify per request; docs/decisions/0001-per-entry-caches.md). A miss compiles
// one server's policy in three indexed queries. Every write to the server's row, tools, scopes,
// tool-scope mappings or drift events drops the entry (storage/change-tracking.ts: "policy:<id>").
import { createHash } from "node:crypto";
import type { Db } from "../../../storage";
import type { CacheFactory } from "../../../storage/cache-factory";
import type { EntryCache } from "../../../shared/entry-cache";
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
  /** The pinned definition hash of each tool in the matrix that has one (catalog/definition-pins.ts). */
  definition_hashes: Record<string, string>;
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
  private readonly cache: EntryCache<CompiledPolicy>;

  constructor(db: Db, caches: CacheFactory) {
    this.cache = caches.create<CompiledPolicy>("policy", async (rsId) => {
      const s = await db.resourceServer.findUnique({ where: { id: rsId }, select: { id: true, state: true, scanGeneration: true, deletedAt: true } });
      if (!s || s.deletedAt) return null;
      const ready = s.state === "ready";
      const [tools, events] = await Promise.all([
        ready
          ? db.tool.findMany({ where: { resourceServerId: rsId }, select: { name: true, isPublic: true, approvedDefinitionHash: true, scopes: { select: { scope: { select: { key: true } } } } } })
          : Promise.resolve([]),
        db.driftEvent.findMany({ where: { rsId, dismissedAt: null }, orderBy: DRIFT_ORDER }),
      ]);
      const matrix = ready ? compileScopeMatrix(tools.map((t) => ({ name: t.name, isPublic: t.isPublic, scopeKeys: t.scopes.map((x) => x.scope.key) }))) : {};
      return compileDocument({
        rs_id: s.id,
        state: s.state,
        generation: s.scanGeneration,
        policy_complete: ready,
        ...(ready ? {} : { reason: notReadyReason(s.state) }),
        scope_matrix: matrix,
        definition_hashes: Object.fromEntries(
          tools.filter((t) => t.approvedDefinitionHash !== null && Object.hasOwn(matrix, t.name)).map((t) => [t.name, t.approvedDefinitionHash!]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        ),
        drift_events: events.map(toDriftEventView),
      });
    });
  }

  /** The compiled policy (null for an unknown or deleted server); synchronous on a hit. */
  get(rsId: string): CompiledPolicy | null | Promise<CompiledPolicy | null> {
    return this.cache.get(rsId);
  }
}
