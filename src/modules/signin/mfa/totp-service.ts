// TOTP second factor of a person (RFC 6238, docs/operations.md "Second factors"): enrol (the
// secret shown once, as an otpauth:// URI and a QR code), confirm with a first code (which turns it
// on and gives ten recovery codes), disable with a code or a recovery code. Verification accepts
// each time step once per user across every instance (lastStep compare-and-set) and counts
// failures in the sign-in throttle like wrong passwords. The secret is encrypted at rest.
import type { Db } from "../../../storage";
import type { Clock } from "../../../shared/clock";
import { conflict, badRequest } from "../../../shared/errors";
import { decryptAtRest, encryptAtRest } from "../../../shared/crypto";
import type { AttemptSource, Person, ThrottledCheck } from "./person";
import { looksLikeRecoveryCode, type RecoveryCodes } from "./recovery-codes";
import { matchingStep, newTotpSecret, otpauthUri, qrCodeDataUri } from "./totp";

export interface TotpEnrolment {
  secret: string;
  otpauth_uri: string;
  /** The URI as a QR code: an SVG image as a data: URI. */
  qr_code: string;
}

/** Which factor a code proved: an authenticator code or a recovery code (src/modules/signin/factors ids). */
export type CodeFactor = "otp" | "recovery_code";

export class TotpService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly secretKey: Buffer,
    private readonly recovery: RecoveryCodes,
    private readonly throttled: ThrottledCheck,
    /** The account name shown in the authenticator app (the user's email), and the issuer label. */
    private readonly accountName: (person: Person) => Promise<string>,
    private readonly issuerName: string,
  ) {}

  private seal(person: Person, secret: string): string {
    return encryptAtRest(this.secretKey, secret, `totp:${person.userId}`);
  }

  private open(person: Person, sealed: string): string {
    return decryptAtRest(this.secretKey, sealed, `totp:${person.userId}`);
  }

  /** Whether the person has a confirmed authenticator. */
  async enrolled(person: Person): Promise<boolean> {
    const row = await this.db.totpFactor.findUnique({ where: { userId: person.userId } });
    return !!row && row.tenantId === person.tenantId && row.confirmedAt !== null;
  }

  async status(person: Person): Promise<{ enrolled: boolean; confirmed_at: string | null; recovery_codes_left: number }> {
    const row = await this.db.totpFactor.findUnique({ where: { userId: person.userId } });
    const confirmed = row && row.tenantId === person.tenantId ? row.confirmedAt : null;
    return { enrolled: confirmed !== null, confirmed_at: confirmed?.toISOString() ?? null, recovery_codes_left: confirmed ? await this.recovery.remaining(person.tenantId, person.userId, this.db) : 0 };
  }

  /** A new, unconfirmed secret (replacing an unconfirmed one); 409 while one is confirmed. */
  async enroll(person: Person): Promise<TotpEnrolment> {
    const current = await this.db.totpFactor.findUnique({ where: { userId: person.userId } });
    if (current?.confirmedAt) throw conflict("an authenticator is already enrolled; disable it first");
    const secret = newTotpSecret();
    const now = this.clock.now();
    await this.db.totpFactor.upsert({
      where: { userId: person.userId },
      create: { userId: person.userId, tenantId: person.tenantId, secretEnc: this.seal(person, secret), createdAt: now },
      update: { tenantId: person.tenantId, secretEnc: this.seal(person, secret), createdAt: now, lastStep: 0, confirmedAt: null },
    });
    const uri = otpauthUri(secret, await this.accountName(person), this.issuerName);
    return { secret, otpauth_uri: uri, qr_code: await qrCodeDataUri(uri) };
  }

  /** The first code proves the app has the secret: the factor is on, and ten recovery codes are issued. */
  async confirm(person: Person, code: string, source: AttemptSource): Promise<{ recovery_codes: string[] }> {
    const row = await this.db.totpFactor.findUnique({ where: { userId: person.userId } });
    if (!row || row.tenantId !== person.tenantId) throw conflict("no authenticator to confirm; enroll first");
    if (row.confirmedAt) throw conflict("the authenticator is already confirmed");
    const ok = await this.throttled(person, source, async () => ((await this.useStep(person, row.secretEnc, code)) ? true : null));
    if (!ok) throw badRequest("code: wrong or already used code");
    return this.db.$transaction(async (tx) => {
      await tx.totpFactor.update({ where: { userId: person.userId }, data: { confirmedAt: this.clock.now() } });
      return { recovery_codes: await this.recovery.replace(tx, person.tenantId, person.userId) };
    });
  }

  /** Turns the factor off (and drops the recovery codes); needs a current code or a recovery code. */
  async disable(person: Person, code: string, source: AttemptSource): Promise<void> {
    if (!(await this.enrolled(person))) throw conflict("no authenticator is enrolled");
    if ((await this.verify(person, code, source)) === null) throw badRequest("code: wrong or already used code");
    await this.db.$transaction(async (tx) => {
      await tx.totpFactor.deleteMany({ where: { userId: person.userId, tenantId: person.tenantId } });
      await this.recovery.removeAll(tx, person.tenantId, person.userId);
    });
  }

  /**
   * A second-factor check at sign-in: an authenticator code (each step once) or a recovery code
   * (each code once). Which one it was, or null (wrong, replayed, or no confirmed factor). Counted
   * in the throttle; a throttled attempt throws too_many_requests.
   */
  async verify(person: Person, code: string, source: AttemptSource): Promise<CodeFactor | null> {
    const row = await this.db.totpFactor.findUnique({ where: { userId: person.userId } });
    if (!row || row.tenantId !== person.tenantId || !row.confirmedAt) return null;
    return this.throttled(person, source, async (): Promise<CodeFactor | null> => {
      if (looksLikeRecoveryCode(code)) return (await this.recovery.use(this.db, person.tenantId, person.userId, code)) ? "recovery_code" : null;
      return (await this.useStep(person, row.secretEnc, code.trim())) ? "otp" : null;
    });
  }

  /** Accepts the code's step once: only a step newer than the last accepted one (compare-and-set). */
  private async useStep(person: Person, secretEnc: string, code: string): Promise<boolean> {
    const step = matchingStep(this.open(person, secretEnc), code, this.clock.now());
    if (step === null) return false;
    const { count } = await this.db.totpFactor.updateMany({ where: { userId: person.userId, lastStep: { lt: step } }, data: { lastStep: step } });
    return count === 1;
  }

  /** Operator reset (CLI `toolgate users reset-mfa`): removes the authenticator and the recovery codes. */
  async reset(tenantId: string, userId: string): Promise<void> {
    await this.db.$transaction(async (tx) => {
      await tx.totpFactor.deleteMany({ where: { userId, tenantId } });
      await this.recovery.removeAll(tx, tenantId, userId);
    });
  }
}

