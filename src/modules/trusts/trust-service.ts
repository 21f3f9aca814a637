// Trusted ID-JAG issuers (/svc/oocmgr/id-jag-trusts) and workload identity trusts
// (/svc/spire/trust-domains) of a workspace: create, list, read, delete (docs/enterprise-agents.md).
// Every write records an audit event in its transaction; the hot-path entry of the workspace's
// trusts (`TrustRegistry`) is dropped by the unit of work on each write, on every instance.
import { recordAuditEvent, isUniqueViolation, type Db, type DbOrTx } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { badRequest, conflict, notFound } from "../../shared/errors";
import { type Actor, assertCanRead, assertCanWrite } from "../../shared/actor";
import type { IdJagTrust, WorkloadTrust } from "../../generated/sqlite/client";
import { AUDIT_ACTIONS } from "../audit";
import type { CreateIdJagTrustInput, CreateWorkloadTrustInput, UpdateIdJagTrustInput, WorkloadRule } from "./schemas";

export interface IdJagTrustView {
  id: string;
  workspace_id: string;
  name: string;
  issuer: string;
  jwks_uri: string | null;
  jwks: unknown;
  allowed_algs: string[];
  clock_skew_s: number;
  max_assertion_lifetime_s: number;
  subject_claim: string;
  jit_create_users: boolean;
  tenant: string | null;
  auto_approve_group_ids: string[];
  provider_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface WorkloadTrustView {
  id: string;
  workspace_id: string;
  name: string;
  issuer: string | null;
  trust_domain: string | null;
  jwks_uri: string | null;
  jwks: unknown;
  audience: string;
  allowed_algs: string[];
  clock_skew_s: number;
  max_lifetime_s: number;
  rules: WorkloadRule[];
  created_at: string;
  updated_at: string;
}

export function toIdJagTrustView(t: IdJagTrust): IdJagTrustView {
  return {
    id: t.id,
    workspace_id: t.tenantId,
    name: t.name,
    issuer: t.issuer,
    jwks_uri: t.jwksUri,
    jwks: t.jwks ?? null,
    allowed_algs: t.allowedAlgs as string[],
    clock_skew_s: t.clockSkewS,
    max_assertion_lifetime_s: t.maxAssertionLifetimeS,
    subject_claim: t.subjectClaim,
    jit_create_users: t.jitCreateUsers,
    tenant: t.idpTenant,
    auto_approve_group_ids: (t.autoApproveGroupIds as string[] | null) ?? [],
    provider_id: t.providerId,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}

export function toWorkloadTrustView(t: WorkloadTrust): WorkloadTrustView {
  return {
    id: t.id,
    workspace_id: t.tenantId,
    name: t.name,
    issuer: t.issuer,
    trust_domain: t.trustDomain,
    jwks_uri: t.jwksUri,
    jwks: t.jwks ?? null,
    audience: t.audience,
    allowed_algs: t.allowedAlgs as string[],
    clock_skew_s: t.clockSkewS,
    max_lifetime_s: t.maxLifetimeS,
    rules: t.rules as WorkloadRule[],
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}

export class TrustService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async createIdJag(actor: Actor, input: CreateIdJagTrustInput): Promise<IdJagTrustView> {
    assertCanWrite(actor);
    const now = this.clock.now();
    let issuer = input.issuer;
    try {
      const row = await this.db.$transaction(async (tx) => {
        let jwksUri = input.jwks_uri ?? null;
        if (input.provider_id !== undefined) {
          // The provider's issuer and keys (one source of truth at creation; decision 0047).
          const provider = await tx.identityProvider.findFirst({ where: { id: input.provider_id, tenantId: actor.tenantId }, select: { issuer: true, jwksUri: true } });
          if (!provider) throw notFound("provider");
          issuer = provider.issuer;
          jwksUri = provider.jwksUri;
        }
        await this.assertGroups(tx, actor, input.auto_approve_group_ids);
        const row = await tx.idJagTrust.create({
          data: {
            id: this.ids.uuid(),
            tenantId: actor.tenantId,
            name: input.name,
            issuer: issuer!,
            jwksUri,
            jwks: (input.jwks ?? undefined) as never,
            allowedAlgs: input.allowed_algs,
            clockSkewS: input.clock_skew_s,
            maxAssertionLifetimeS: input.max_assertion_lifetime_s,
            subjectClaim: input.subject_claim,
            jitCreateUsers: input.jit_create_users,
            idpTenant: input.tenant ?? null,
            autoApproveGroupIds: input.auto_approve_group_ids,
            providerId: input.provider_id ?? null,
            createdAt: now,
            updatedAt: now,
          },
        });
        await recordAuditEvent(tx, { action: AUDIT_ACTIONS.idJagTrustCreated, target: { type: "id_jag_trust", id: row.id }, detail: { issuer: row.issuer, provider_id: row.providerId, auto_approve_group_ids: input.auto_approve_group_ids } });
        return row;
      });
      return toIdJagTrustView(row);
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict(`the issuer ${issuer} is already trusted in this workspace`);
      throw e;
    }
  }

  /** The auto-approval setting: members of these groups get their first connection approved at once. */
  async updateIdJag(actor: Actor, id: string, input: UpdateIdJagTrustInput): Promise<IdJagTrustView> {
    assertCanWrite(actor);
    const row = await this.db.$transaction(async (tx) => {
      await this.findIdJag(tx, actor, id);
      await this.assertGroups(tx, actor, input.auto_approve_group_ids);
      const row = await tx.idJagTrust.update({ where: { id }, data: { autoApproveGroupIds: input.auto_approve_group_ids, updatedAt: this.clock.now() } });
      await recordAuditEvent(tx, { action: AUDIT_ACTIONS.idJagTrustUpdated, target: { type: "id_jag_trust", id }, detail: { auto_approve_group_ids: input.auto_approve_group_ids } });
      return row;
    });
    return toIdJagTrustView(row);
  }

  private async assertGroups(tx: DbOrTx, actor: Actor, groupIds: readonly string[]): Promise<void> {
    if (groupIds.length === 0) return;
    const found = await tx.group.findMany({ where: { id: { in: [...groupIds] }, tenantId: actor.tenantId }, select: { id: true } });
    const missing = groupIds.filter((g) => !found.some((f) => f.id === g));
    if (missing.length) throw badRequest(`auto_approve_group_ids: no group ${missing.join(", ")} in this workspace`);
  }

  async listIdJag(actor: Actor): Promise<{ items: IdJagTrustView[]; count: number }> {
    assertCanRead(actor);
    const rows = await this.db.idJagTrust.findMany({ where: { tenantId: actor.tenantId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: 1000 });
    return { items: rows.map(toIdJagTrustView), count: rows.length };
  }

  async getIdJag(actor: Actor, id: string): Promise<IdJagTrustView> {
    assertCanRead(actor);
    return toIdJagTrustView(await this.findIdJag(this.db, actor, id));
  }

  async removeIdJag(actor: Actor, id: string): Promise<void> {
    assertCanWrite(actor);
    await this.db.$transaction(async (tx) => {
      await this.findIdJag(tx, actor, id);
      await tx.idJagTrust.delete({ where: { id } });
    });
  }

  async createWorkload(actor: Actor, input: CreateWorkloadTrustInput): Promise<WorkloadTrustView> {
    assertCanWrite(actor);
    const now = this.clock.now();
    try {
      const row = await this.db.$transaction(async (tx) => {
        const row = await tx.workloadTrust.create({
          data: {
            id: this.ids.uuid(),
            tenantId: actor.tenantId,
            name: input.name,
            issuer: input.issuer ?? null,
            trustDomain: input.trust_domain ?? null,
            jwksUri: input.jwks_uri ?? null,
            jwks: (input.jwks ?? undefined) as never,
            audience: input.audience,
            allowedAlgs: input.allowed_algs,
            clockSkewS: input.clock_skew_s,
            maxLifetimeS: input.max_lifetime_s,
            rules: input.rules,
            createdAt: now,
            updatedAt: now,
          },
        });
        await recordAuditEvent(tx, { action: AUDIT_ACTIONS.workloadTrustCreated, target: { type: "workload_trust", id: row.id }, detail: { issuer: row.issuer, trust_domain: row.trustDomain } });
        return row;
      });
      return toWorkloadTrustView(row);
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict(`a trust named ${input.name} already exists in this workspace`);
      throw e;
    }
  }

  async listWorkload(actor: Actor): Promise<{ items: WorkloadTrustView[]; count: number }> {
    assertCanRead(actor);
    const rows = await this.db.workloadTrust.findMany({ where: { tenantId: actor.tenantId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: 1000 });
    return { items: rows.map(toWorkloadTrustView), count: rows.length };
  }

  async getWorkload(actor: Actor, id: string): Promise<WorkloadTrustView> {
    assertCanRead(actor);
    return toWorkloadTrustView(await this.findWorkload(this.db, actor, id));
  }

  async removeWorkload(actor: Actor, id: string): Promise<void> {
    assertCanWrite(actor);
    await this.db.$transaction(async (tx) => {
      await this.findWorkload(tx, actor, id);
      await tx.workloadTrust.delete({ where: { id } });
    });
  }

  private async findIdJag(tx: DbOrTx, actor: Actor, id: string): Promise<IdJagTrust> {
    const row = await tx.idJagTrust.findFirst({ where: { id, tenantId: actor.tenantId } });
    if (!row) throw notFound("id-jag trust");
    return row;
  }

  private async findWorkload(tx: DbOrTx, actor: Actor, id: string): Promise<WorkloadTrust> {
    const row = await tx.workloadTrust.findFirst({ where: { id, tenantId: actor.tenantId } });
    if (!row) throw notFound("workload trust");
    return row;
  }
}
