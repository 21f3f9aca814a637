// WebAuthn challenges kept server-side for their timeout only, and consumed once whatever the
// outcome (deleted when presented): a ceremony's response can never be replayed, in this instance
// or another. A challenge is bound to its purpose, its workspace and, when known, its user.
import type { Db } from "../../../storage";
import type { Clock } from "../../../shared/clock";
import type { IdGenerator } from "../../../shared/ids";

export type ChallengePurpose = "register" | "login";

export interface ChallengeBinding {
  purpose: ChallengePurpose;
  tenantId: string;
  /** The user the ceremony is for; undefined for a username-less sign-in. */
  userId?: string;
}

export class WebAuthnChallenges {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    readonly timeoutMs: number,
  ) {}

  async issue(binding: ChallengeBinding): Promise<string> {
    const challenge = this.ids.token(32);
    const now = this.clock.now();
    await this.db.webAuthnChallenge.create({
      data: { challenge, purpose: binding.purpose, tenantId: binding.tenantId, userId: binding.userId ?? null, expiresAt: new Date(now.getTime() + this.timeoutMs) },
    });
    // Expired ones can never be consumed; the index on expiresAt keeps this delete proportional to them.
    await this.db.webAuthnChallenge.deleteMany({ where: { expiresAt: { lt: now } } });
    return challenge;
  }

  /** True once for a live challenge with this binding; the challenge is gone afterwards either way. */
  async consume(challenge: string, binding: ChallengeBinding): Promise<boolean> {
    const row = await this.db.webAuthnChallenge.findUnique({ where: { challenge } });
    if (!row) return false;
    const { count } = await this.db.webAuthnChallenge.deleteMany({ where: { challenge } });
    return (
      count === 1 && row.expiresAt > this.clock.now() && row.purpose === binding.purpose && row.tenantId === binding.tenantId && (binding.userId === undefined || row.userId === binding.userId)
    );
  }
}
