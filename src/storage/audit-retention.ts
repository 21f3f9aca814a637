// Retention of the audit trail: the only deletion of audit events. The oldest events of a chain
// are deleted together with the writing of their signed checkpoint (modules/audit/retention.ts
// signs it), in one transaction, so the chain's remaining events always verify from it.
import type { DbOrTx } from "./prisma";

export interface CheckpointRow {
  id: string;
  chain: string;
  /** The last deleted event. */
  seq: number;
  hash: string;
  occurredAt: Date;
  jws: string;
  createdAt: Date;
}

/** Deletes the chain's events up to `checkpoint.seq` and keeps the checkpoint; answers how many were deleted. */
export async function pruneAuditChain(tx: DbOrTx, checkpoint: CheckpointRow, eventsPruned: number): Promise<number> {
  await tx.auditCheckpoint.create({ data: { ...checkpoint, eventsPruned } });
  const { count } = await tx.auditEvent.deleteMany({ where: { chain: checkpoint.chain, seq: { lte: checkpoint.seq } } });
  return count;
}
