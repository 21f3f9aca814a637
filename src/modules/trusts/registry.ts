// The trusts of a workspace as the jwt-bearer grant reads them: one per-entry cache entry per
// workspace ("trusts:<workspace id>"), dropped by the unit of work on every write to either trust
// table (storage/change-tracking.ts), on every instance. A miss is two indexed queries.
import type { Db } from "../../storage";
import type { CacheFactory } from "../../storage/cache-factory";
import type { EntryCache } from "../../shared/entry-cache";
import type { SubjectClaim, WorkloadRule } from "./schemas";

/** Where a trust's keys come from: a jwks_uri (fetched through the SSRF guard, cached) or an inline set. */
export type TrustKeys = { jwksUri: string } | { jwks: { keys: Array<Record<string, unknown>> } };

export interface IdJagTrustFacts {
  id: string;
  tenantId: string;
  issuer: string;
  keys: TrustKeys;
  allowedAlgs: readonly string[];
  clockSkewS: number;
  maxAssertionLifetimeS: number;
  subjectClaim: SubjectClaim;
  jitCreateUsers: boolean;
  tenant: string | null;
  /** Members of these groups get their first connection approved at once. */
  autoApproveGroupIds: readonly string[];
}

export interface WorkloadTrustFacts {
  id: string;
  tenantId: string;
  issuer: string | null;
  trustDomain: string | null;
  keys: TrustKeys;
  audience: string;
  allowedAlgs: readonly string[];
  clockSkewS: number;
  maxLifetimeS: number;
  rules: readonly WorkloadRule[];
}

export interface WorkspaceTrusts {
  idJag: readonly IdJagTrustFacts[];
  workload: readonly WorkloadTrustFacts[];
}

const keysOf = (r: { jwksUri: string | null; jwks: unknown }): TrustKeys => (r.jwksUri ? { jwksUri: r.jwksUri } : { jwks: r.jwks as { keys: Array<Record<string, unknown>> } });

export class TrustRegistry {
  private readonly cache: EntryCache<WorkspaceTrusts>;

  constructor(db: Db, caches: CacheFactory) {
    this.cache = caches.create<WorkspaceTrusts>("trusts", async (tenantId) => {
      const [idJag, workload] = await Promise.all([db.idJagTrust.findMany({ where: { tenantId } }), db.workloadTrust.findMany({ where: { tenantId } })]);
      return {
        idJag: idJag.map((r) => ({
          id: r.id,
          tenantId: r.tenantId,
          issuer: r.issuer,
          keys: keysOf(r),
          allowedAlgs: r.allowedAlgs as string[],
          clockSkewS: r.clockSkewS,
          maxAssertionLifetimeS: r.maxAssertionLifetimeS,
          subjectClaim: r.subjectClaim as SubjectClaim,
          jitCreateUsers: r.jitCreateUsers,
          tenant: r.idpTenant,
          autoApproveGroupIds: (r.autoApproveGroupIds as string[] | null) ?? [],
        })),
        workload: workload.map((r) => ({
          id: r.id,
          tenantId: r.tenantId,
          issuer: r.issuer,
          trustDomain: r.trustDomain,
          keys: keysOf(r),
          audience: r.audience,
          allowedAlgs: r.allowedAlgs as string[],
          clockSkewS: r.clockSkewS,
          maxLifetimeS: r.maxLifetimeS,
          rules: r.rules as WorkloadRule[],
        })),
      };
    });
  }

  async of(tenantId: string): Promise<WorkspaceTrusts> {
    return (await this.cache.get(tenantId)) ?? { idJag: [], workload: [] };
  }

  /** The workspace's ID-JAG trust for `iss` (and the assertion's `tenant` claim when the trust names one). */
  async idJagTrust(tenantId: string, iss: string, tenantClaim: unknown): Promise<IdJagTrustFacts | undefined> {
    const trusts = await this.of(tenantId);
    return trusts.idJag.find((t) => t.issuer === iss && (t.tenant === null || t.tenant === tenantClaim));
  }

  /** The workspace's workload trust for the JWT: by `iss`, else by the SPIFFE trust domain of `sub`. */
  async workloadTrust(tenantId: string, iss: unknown, sub: unknown): Promise<WorkloadTrustFacts | undefined> {
    const trusts = await this.of(tenantId);
    const domain = typeof sub === "string" ? spiffeTrustDomain(sub) : undefined;
    return (
      trusts.workload.find((t) => t.issuer !== null && t.issuer === iss && (t.trustDomain === null || t.trustDomain === domain)) ??
      trusts.workload.find((t) => t.issuer === null && t.trustDomain !== null && t.trustDomain === domain)
    );
  }
}

/** The trust domain of a SPIFFE ID (spiffe://<trust domain>/<path>), or undefined. */
export function spiffeTrustDomain(id: string): string | undefined {
  const m = /^spiffe:\/\/([a-z0-9._-]+)(\/[^?#]*)?$/.exec(id);
  return m?.[1];
}

/** The client_id a workload subject maps to: an exact subject first, then the first matching pattern (`*` = any run without `/`). */
export function ruleFor(rules: readonly WorkloadRule[], subject: string): string | undefined {
  const exact = rules.find((r) => r.subject === subject);
  if (exact) return exact.client_id;
  for (const r of rules) {
    if (r.pattern === undefined) continue;
    const re = new RegExp("^" + r.pattern.split("*").map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[^/]*") + "$");
    if (re.test(subject)) return r.client_id;
  }
  return undefined;
}
