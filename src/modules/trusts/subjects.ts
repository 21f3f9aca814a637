// Who an ID-JAG speaks for (ID-JAG §3.2, §6.3; docs/enterprise-agents.md "Subjects"): the trust's
// subject claim picks the identifier —
//   sub (default): iss + sub (+ tenant, by the trust) -> the user linked to it;
//   sub_id: the −04 subject identifier object (RFC 9493), required and well-formed, else invalid_grant;
//   email (opt-in): the workspace's user with that email.
// An unknown subject is created just in time when the trust says so (needs an `email` claim), else
// refused with access_denied (a valid ID-JAG for a user not provisioned here).
import type { Db } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { isUniqueViolation } from "../../storage";
import { ensureJitMember } from "../tenancy";
import type { IdJagTrustFacts } from "./registry";

export type SubjectResolution = { ok: true; userId: string } | { ok: false; error: "invalid_grant" | "access_denied"; reason: string };

const EMAIL_RE = /^[^\s@]{1,64}@[^\s@]{1,189}$/;

/** Links are never changed once made, so each instance may keep them (bounded; the oldest goes first). */
const MAX_LINKS = 10_000;

export class IdJagSubjects {
  private readonly links = new Map<string, string>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async resolve(trust: IdJagTrustFacts, claims: Record<string, unknown>): Promise<SubjectResolution> {
    const email = typeof claims.email === "string" && EMAIL_RE.test(claims.email) ? claims.email.trim().toLowerCase() : undefined;
    if (trust.subjectClaim === "email") {
      if (!email) return { ok: false, error: "invalid_grant", reason: "the trust links by email and the ID-JAG has no email claim" };
      const user = await this.db.user.findUnique({ where: { tenantId_email: { tenantId: trust.tenantId, email } }, select: { id: true } });
      if (user) return { ok: true, userId: user.id };
      return this.jit(trust, `email:${email}`, email, false);
    }
    let subject: string;
    if (trust.subjectClaim === "sub_id") {
      const s = claims.sub_id;
      if (typeof s !== "object" || s === null || Array.isArray(s) || typeof (s as { format?: unknown }).format !== "string") return { ok: false, error: "invalid_grant", reason: "sub_id missing or malformed" };
      subject = "sub_id:" + JSON.stringify(Object.fromEntries(Object.entries(s).sort(([a], [b]) => a.localeCompare(b))));
    } else {
      if (typeof claims.sub !== "string" || claims.sub === "") return { ok: false, error: "invalid_grant", reason: "sub missing" };
      subject = "sub:" + claims.sub;
    }
    if (subject.length > 1000) return { ok: false, error: "invalid_grant", reason: "subject too long" };
    const known = this.links.get(`${trust.id} ${subject}`);
    if (known) return { ok: true, userId: known };
    const link = await this.db.idJagSubject.findUnique({ where: { trustId_subject: { trustId: trust.id, subject } }, select: { userId: true } });
    if (link) return { ok: true, userId: this.remember(trust.id, subject, link.userId) };
    if (!email) return { ok: false, error: "access_denied", reason: "subject not provisioned in this workspace (and no email claim to create it)" };
    return this.jit(trust, subject, email, true);
  }

  private remember(trustId: string, subject: string, userId: string): string {
    if (this.links.size >= MAX_LINKS) this.links.delete(this.links.keys().next().value!);
    this.links.set(`${trustId} ${subject}`, userId);
    return userId;
  }

  private async jit(trust: IdJagTrustFacts, subject: string, email: string, link: boolean): Promise<SubjectResolution> {
    if (!trust.jitCreateUsers) return { ok: false, error: "access_denied", reason: "subject not provisioned in this workspace (JIT creation is off)" };
    const now = this.clock.now();
    try {
      const userId = await this.db.$transaction(async (tx) => {
        const userId = await ensureJitMember(tx, this.ids, now, { tenantId: trust.tenantId, email, source: "id_jag", externalId: `${trust.id}:${subject}`.slice(0, 1000) });
        if (link) await tx.idJagSubject.create({ data: { id: this.ids.uuid(), trustId: trust.id, tenantId: trust.tenantId, subject, userId, createdAt: now } });
        return userId;
      });
      return { ok: true, userId };
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      // A concurrent first exchange for the same subject: read what it created.
      const again = link
        ? await this.db.idJagSubject.findUnique({ where: { trustId_subject: { trustId: trust.id, subject } }, select: { userId: true } })
        : await this.db.user.findUnique({ where: { tenantId_email: { tenantId: trust.tenantId, email } }, select: { id: true } }).then((u) => (u ? { userId: u.id } : null));
      if (!again) throw e;
      return { ok: true, userId: again.userId };
    }
  }
}
