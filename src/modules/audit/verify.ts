// `toolgate audit verify`: walks each chain of the audit trail in order and recomputes every hash
// (src/storage/audit-hash.ts). It reports, per chain:
// - an edited event: its stored hash is not the hash of its own columns and prevHash;
// - a deleted or reordered event: an event's prevHash is not the hash of the event before it, or
//   its seq does not follow (a gap);
// - a truncation after a checkpoint: the first event left is not the one right after the newest
//   signed checkpoint, or does not name its hash; a checkpoint whose signature does not verify;
// - a truncated tail: the chain's head (PostgreSQL: the AuditChain row; anywhere: `expectHead`,
//   e.g. the last seq and hash a log shipper received) is beyond the last event left.
import { GENESIS_HASH, INSTALLATION_CHAIN, chainHash, contentHash, type Db } from "../../storage";
import { verifyCheckpoint } from "./checkpoints";

const PAGE = 1000;

export interface ChainReport {
  chain: string;
  workspace_id: string | null;
  events: number;
  first_seq: number | null;
  last_seq: number | null;
  last_hash: string | null;
  checkpoint: { seq: number; signature: "valid" | "invalid" } | null;
  ok: boolean;
  problems: string[];
}

export interface VerifyReport {
  ok: boolean;
  chains: ChainReport[];
}

export interface VerifyOptions {
  /** Only this chain (a workspace id, or "installation"). */
  chain?: string;
  /** The head as known outside the database (a log shipper's last line): the chain must reach it. */
  expectHead?: { seq: number; hash: string };
}

export async function verifyAuditTrail(db: Db, opts: VerifyOptions = {}): Promise<VerifyReport> {
  const where = opts.chain ? { chain: opts.chain } : {};
  const names = new Set<string>([
    ...(await db.auditEvent.groupBy({ by: ["chain"], where })).map((g) => g.chain),
    ...(await db.auditCheckpoint.groupBy({ by: ["chain"], where })).map((g) => g.chain),
    ...(await db.auditChain.findMany({ where, select: { chain: true } })).map((g) => g.chain),
  ]);
  if (opts.chain) names.add(opts.chain);
  const chains: ChainReport[] = [];
  for (const chain of [...names].sort()) chains.push(await verifyChain(db, chain, opts.chain === chain ? opts.expectHead : undefined));
  return { ok: chains.every((c) => c.ok), chains };
}

async function verifyChain(db: Db, chain: string, expectHead: { seq: number; hash: string } | undefined): Promise<ChainReport> {
  const problems: string[] = [];
  // The newest checkpoint anchors the chain; every checkpoint's signature and columns must agree.
  const checkpoints = await db.auditCheckpoint.findMany({ where: { chain }, orderBy: { seq: "asc" } });
  const anchors = new Map<number, string>();
  let checkpoint: ChainReport["checkpoint"] = null;
  for (const cp of checkpoints) {
    const verified = await verifyCheckpoint(db, cp.jws);
    const valid = verified.ok && verified.claims.chain === chain && verified.claims.seq === cp.seq && verified.claims.hash === cp.hash;
    if (!valid) problems.push(`checkpoint at seq ${cp.seq}: ${verified.ok ? "its signed claims do not match the stored checkpoint" : verified.reason}`);
    else anchors.set(cp.seq, cp.hash);
    checkpoint = { seq: cp.seq, signature: valid ? "valid" : "invalid" };
  }
  const newest = checkpoints.at(-1);

  let events = 0;
  let first: number | null = null;
  let prev: { seq: number; hash: string } | undefined;
  for (let after = 0; ; ) {
    const page = await db.auditEvent.findMany({ where: { chain, seq: { gt: after } }, orderBy: { seq: "asc" }, take: PAGE });
    for (const e of page) {
      events++;
      if (first === null) {
        first = e.seq;
        // Where the chain must start: the genesis, or right after the newest checkpoint.
        if (e.seq === 1) prev = { seq: 0, hash: GENESIS_HASH };
        else if (newest && anchors.has(newest.seq)) {
          prev = { seq: newest.seq, hash: newest.hash };
          if (e.seq !== newest.seq + 1) problems.push(`events ${newest.seq + 1} to ${e.seq - 1} are missing after the checkpoint at seq ${newest.seq} (truncated)`);
        } else problems.push(`events 1 to ${e.seq - 1} are missing and no valid checkpoint covers them`);
      } else if (prev && e.seq !== prev.seq + 1) problems.push(`events ${prev.seq + 1} to ${e.seq - 1} are missing (deleted)`);
      if (prev && e.prevHash !== prev.hash) problems.push(`event ${e.seq}: prev_hash does not match the event before it (an event was deleted, reordered or replaced)`);
      if (chainHash(e.prevHash, e.seq, contentHash(e)) !== e.hash) problems.push(`event ${e.seq}: its hash does not match its content (edited)`);
      const anchored = anchors.get(e.seq);
      if (anchored !== undefined && anchored !== e.hash) problems.push(`event ${e.seq}: differs from the signed checkpoint`);
      prev = { seq: e.seq, hash: e.hash };
    }
    if (page.length < PAGE) break;
    after = page.at(-1)!.seq;
  }
  if (events === 0 && newest) prev = { seq: newest.seq, hash: newest.hash };

  const heads = [await db.auditChain.findUnique({ where: { chain } }), expectHead].filter((h): h is { seq: number; hash: string } => !!h);
  for (const head of heads) {
    const last = prev?.seq ?? 0;
    if (head.seq > last) problems.push(`the chain's head is at seq ${head.seq} but its last event is ${last} (truncated)`);
    else if (head.seq === last && prev && head.hash !== prev.hash) problems.push(`the chain's head hash differs from its last event's (replaced)`);
  }
  return {
    chain,
    workspace_id: chain === INSTALLATION_CHAIN ? null : chain,
    events,
    first_seq: first,
    last_seq: prev?.seq ?? null,
    last_hash: prev?.hash ?? null,
    checkpoint,
    ok: problems.length === 0,
    problems,
  };
}
