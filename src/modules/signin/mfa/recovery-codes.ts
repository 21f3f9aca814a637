// Ten one-time recovery codes per TOTP enrolment, shown once and stored as peppered hashes
// (hashSecret, constant-time lookups by hash). 10 characters of Crockford base32 each (50 bits),
// shown as xxxxx-xxxxx; a code is used once (a compare-and-set on usedAt).
import { randomInt } from "node:crypto";
import type { DbOrTx } from "../../../storage";
import type { Clock } from "../../../shared/clock";
import type { IdGenerator } from "../../../shared/ids";
import { hashSecret } from "../../../shared/crypto";

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"; // Crockford base32, lower case
const SHAPE = /^[0-9a-z]{5}-?[0-9a-z]{5}$/;

/** The canonical form of what a person typed (case, spaces and the dash do not matter), or null. */
export function normaliseRecoveryCode(input: string): string | null {
  const s = input.trim().toLowerCase().replace(/\s+/g, "").replace(/[il]/g, "1").replace(/o/g, "0");
  return SHAPE.test(s) ? s.replace("-", "") : null;
}

export function looksLikeRecoveryCode(input: string): boolean {
  return normaliseRecoveryCode(input) !== null;
}

export class RecoveryCodes {
  constructor(
    private readonly pepper: Buffer,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /** Replaces the user's codes with ten new ones; returns them (the only time they exist in clear). */
  async replace(tx: DbOrTx, tenantId: string, userId: string): Promise<string[]> {
    await tx.recoveryCode.deleteMany({ where: { tenantId, userId } });
    const now = this.clock.now();
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => Array.from({ length: 10 }, () => ALPHABET[randomInt(ALPHABET.length)]).join(""));
    for (const code of codes) {
      await tx.recoveryCode.create({ data: { id: this.ids.uuid(), tenantId, userId, codeHash: hashSecret(this.pepper, code), createdAt: now } });
    }
    return codes.map((c) => `${c.slice(0, 5)}-${c.slice(5)}`);
  }

  /** Uses one of the user's codes; false when it is not theirs, or was used before. */
  async use(tx: DbOrTx, tenantId: string, userId: string, input: string): Promise<boolean> {
    const code = normaliseRecoveryCode(input);
    if (!code) return false;
    const { count } = await tx.recoveryCode.updateMany({ where: { codeHash: hashSecret(this.pepper, code), tenantId, userId, usedAt: null }, data: { usedAt: this.clock.now() } });
    return count === 1;
  }

  async remaining(tenantId: string, userId: string, db: DbOrTx): Promise<number> {
    return db.recoveryCode.count({ where: { tenantId, userId, usedAt: null } });
  }

  async removeAll(tx: DbOrTx, tenantId: string, userId: string): Promise<void> {
    await tx.recoveryCode.deleteMany({ where: { tenantId, userId } });
  }
}
