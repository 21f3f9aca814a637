// The audit trail's hash chain (docs/decisions/0038-audit-trail.md), one function for the writer
// (audit-trail.ts) and the verifier (modules/audit/verify.ts):
//
//   content = SHA-256 hex of the canonical JSON of the event's columns (CONTENT_FIELDS, in order)
//   hash    = SHA-256 hex of  prevHash + "|" + seq + "|" + content
//
// PostgreSQL computes `hash` itself in the appending statement (sha256(), from the head row it
// locks), so the formula is plain text concatenation that both SQL and this file compute alike.
import { createHash } from "node:crypto";
import { canonicalJson } from "../sdk/definition-hash";

/** The chain of events that belong to no workspace (signing keys, dcr/cimd clients, unknown clients). */
export const INSTALLATION_CHAIN = "installation";
/** The prevHash of a chain's first event. */
export const GENESIS_HASH = "0".repeat(64);

/** What an event says, as stored: every column except its place in the chain (chain, seq, prevHash, hash). */
export interface AuditContent {
  id: string;
  tenantId: string | null;
  occurredAt: Date;
  actorType: string;
  actorId: string | null;
  address: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  outcome: string;
  requestId: string | null;
  summary: string;
}

const sha256Hex = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

export function contentHash(e: AuditContent): string {
  return sha256Hex(
    canonicalJson([e.id, e.tenantId, e.occurredAt.toISOString(), e.actorType, e.actorId, e.address, e.action, e.targetType, e.targetId, e.outcome, e.requestId, e.summary]),
  );
}

export function chainHash(prevHash: string, seq: number, content: string): string {
  return sha256Hex(`${prevHash}|${seq}|${content}`);
}

export const chainOf = (tenantId: string | null): string => tenantId ?? INSTALLATION_CHAIN;
