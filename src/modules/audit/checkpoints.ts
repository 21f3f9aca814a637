// Signed checkpoints of the audit trail (docs/decisions/0038-audit-trail.md): when retention deletes
// the oldest events of a chain it keeps, signed with the service's signing key (ES256 compact JWS,
// RFC 7515), the seq and hash of the last event it deleted. The chain's first remaining event must
// name that hash as its prevHash, so a deletion after the checkpoint (a truncated chain) and a
// forged checkpoint both fail verification. Verification looks the key up by `kid` among every
// key the installation ever had (SigningKey rows are kept), since a checkpoint outlives the key's
// publication in the JWKS.
import { CompactSign, compactVerify, importJWK, type JWK } from "jose";
import type { Db } from "../../storage";
import type { KeyStore } from "../tokens";
import { SIGNING_ALG } from "../tokens";

export const CHECKPOINT_TYP = "toolgate-audit-checkpoint+jws";

export interface CheckpointClaims {
  iss: string;
  chain: string;
  seq: number;
  hash: string;
  occurred_at: string;
  events_pruned: number;
  iat: number;
}

export async function signCheckpoint(keys: KeyStore, claims: CheckpointClaims): Promise<string> {
  const { kid, key } = keys.signingKey();
  return new CompactSign(new TextEncoder().encode(JSON.stringify(claims))).setProtectedHeader({ alg: SIGNING_ALG, typ: CHECKPOINT_TYP, kid }).sign(key);
}

/** The checkpoint's claims when its signature verifies with one of the installation's keys; else the reason it does not. */
export async function verifyCheckpoint(db: Db, jws: string): Promise<{ ok: true; claims: CheckpointClaims } | { ok: false; reason: string }> {
  try {
    const [header] = jws.split(".");
    const { kid, typ, alg } = JSON.parse(Buffer.from(header ?? "", "base64url").toString("utf8")) as { kid?: string; typ?: string; alg?: string };
    if (typ !== CHECKPOINT_TYP || alg !== SIGNING_ALG || typeof kid !== "string") return { ok: false, reason: "not a checkpoint signature" };
    const row = await db.signingKey.findUnique({ where: { kid } });
    if (!row) return { ok: false, reason: `signed with an unknown key ${kid}` };
    const key = await importJWK(JSON.parse(row.publicJwk) as JWK, SIGNING_ALG);
    const { payload } = await compactVerify(jws, key, { algorithms: [SIGNING_ALG] });
    return { ok: true, claims: JSON.parse(new TextDecoder().decode(payload)) as CheckpointClaims };
  } catch {
    return { ok: false, reason: "the signature does not verify" };
  }
}
