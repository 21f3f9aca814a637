// Just-in-time members: a user created in a workspace the first time a trusted identity provider
// vouches for them (an ID-JAG trust with jit_create_users, docs/enterprise-agents.md). No password:
// such a user signs in through the agent's connection only. In the caller's transaction.
import type { DbOrTx } from "../../storage";

export interface JitMemberInput {
  tenantId: string;
  email: string;
  /** Where the member came from (Membership.source), e.g. "id_jag". */
  source: string;
  externalId: string;
}

/** The user with that email in the workspace (created with an active membership when absent); its id. */
export async function ensureJitMember(tx: DbOrTx, ids: { uuid(): string }, now: Date, input: JitMemberInput): Promise<string> {
  const existing = await tx.user.findUnique({ where: { tenantId_email: { tenantId: input.tenantId, email: input.email } }, select: { id: true } });
  if (existing) return existing.id;
  const id = ids.uuid();
  await tx.user.create({ data: { id, tenantId: input.tenantId, email: input.email, username: input.email, createdAt: now, updatedAt: now } });
  await tx.membership.create({
    data: { id: ids.uuid(), tenantId: input.tenantId, userId: id, membershipType: "member", status: "active", source: input.source, externalId: input.externalId, createdAt: now, updatedAt: now },
  });
  return id;
}
