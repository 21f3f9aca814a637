// Passkeys (WebAuthn Level 3) with @simplewebauthn/server (docs/decisions/0037-mfa-totp-and-passkeys.md):
// registration and sign-in ceremonies, a person's credentials listed and deleted. The relying
// party is TOOLGATE_PUBLIC_URL: its host is the RP ID and its origin the only expected origin, so a
// response made for another site (phishing) fails. User verification is required (the key is
// unlocked by PIN or biometric), resident keys are required (discoverable: username-less sign-in),
// the signature counter must grow when the authenticator keeps one (a cloned key is refused), and
// the user handle is the internal user id, never the email. The library's message is only the
// logged reason; the person sees one fixed text.
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from "@simplewebauthn/server";
import type { Db } from "../../../storage";
import type { Clock } from "../../../shared/clock";
import { DomainError, notFound } from "../../../shared/errors";
import type { Person } from "./person";
import type { WebAuthnChallenges } from "./webauthn-challenges";

/** COSE algorithms offered at registration: ES256 (-7), RS256 (-257). */
const ALGORITHMS = [-7, -257];
const MAX_CREDENTIALS = 20;

export interface RelyingParty {
  /** The public URL's host name. */
  id: string;
  /** The public URL's origin. */
  origin: string;
  name: string;
}

export interface PasskeyView {
  id: string;
  name: string;
  device_type: string;
  backed_up: boolean;
  transports: string[];
  created_at: string;
  last_used_at: string | null;
}

/** A refused ceremony: one public message, the library's reason for the log. */
export const passkeyRefused = (reason: string) => new DomainError("bad_request", "the passkey could not be verified", undefined, reason);

export class PasskeyService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly challenges: WebAuthnChallenges,
    private readonly rp: RelyingParty,
    /** The name shown in the authenticator's account picker (the user's email). */
    private readonly accountName: (person: Person) => Promise<string>,
  ) {}

  async has(person: Person): Promise<boolean> {
    return (await this.db.passkeyCredential.count({ where: { tenantId: person.tenantId, userId: person.userId } })) > 0;
  }

  async list(person: Person): Promise<PasskeyView[]> {
    const rows = await this.db.passkeyCredential.findMany({ where: { tenantId: person.tenantId, userId: person.userId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: MAX_CREDENTIALS });
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      device_type: r.deviceType,
      backed_up: r.backedUp,
      transports: r.transports as string[],
      created_at: r.createdAt.toISOString(),
      last_used_at: r.lastUsedAt?.toISOString() ?? null,
    }));
  }

  async remove(person: Person, id: string): Promise<void> {
    const { count } = await this.db.passkeyCredential.deleteMany({ where: { id, tenantId: person.tenantId, userId: person.userId } });
    if (count === 0) throw notFound("passkey");
  }

  /** Options for navigator.credentials.create(); the challenge is kept for the timeout. */
  async registrationOptions(person: Person): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const existing = await this.db.passkeyCredential.findMany({ where: { tenantId: person.tenantId, userId: person.userId }, select: { id: true, transports: true }, take: MAX_CREDENTIALS + 1 });
    if (existing.length >= MAX_CREDENTIALS) throw new DomainError("conflict", `at most ${MAX_CREDENTIALS} passkeys per account; delete one first`);
    const name = await this.accountName(person);
    return generateRegistrationOptions({
      rpName: this.rp.name,
      rpID: this.rp.id,
      userName: name,
      userDisplayName: name,
      userID: new TextEncoder().encode(person.userId),
      challenge: bytes(await this.challenges.issue({ purpose: "register", tenantId: person.tenantId, userId: person.userId })),
      timeout: this.challenges.timeoutMs,
      attestationType: "none",
      excludeCredentials: existing.map((c) => ({ id: c.id, transports: c.transports as AuthenticatorTransport[] })),
      authenticatorSelection: { residentKey: "required", requireResidentKey: true, userVerification: "required" },
      supportedAlgorithmIDs: ALGORITHMS,
    });
  }

  async register(person: Person, response: RegistrationResponseJSON, name: string | undefined): Promise<PasskeyView> {
    let verified;
    try {
      verified = await verifyRegistrationResponse({
        response,
        expectedChallenge: (c) => this.challenges.consume(c, { purpose: "register", tenantId: person.tenantId, userId: person.userId }),
        expectedOrigin: this.rp.origin,
        expectedRPID: this.rp.id,
        requireUserVerification: true,
        supportedAlgorithmIDs: ALGORITHMS,
      });
    } catch (e) {
      throw passkeyRefused(e instanceof Error ? e.message : String(e));
    }
    if (!verified.verified) throw passkeyRefused("registration not verified");
    const { credential, credentialDeviceType, credentialBackedUp } = verified.registrationInfo;
    const now = this.clock.now();
    if (await this.db.passkeyCredential.findUnique({ where: { id: credential.id } })) throw new DomainError("conflict", "this passkey is already registered");
    const row = await this.db.passkeyCredential.create({
      data: {
        id: credential.id,
        tenantId: person.tenantId,
        userId: person.userId,
        publicKey: Buffer.from(credential.publicKey).toString("base64url"),
        counter: BigInt(credential.counter),
        transports: credential.transports ?? [],
        deviceType: credentialDeviceType,
        backedUp: credentialBackedUp,
        name: name?.trim() || "Passkey",
        createdAt: now,
      },
    });
    return (await this.list(person)).find((p) => p.id === row.id)!;
  }

  /** Options for navigator.credentials.get(): the person's credentials, or none (username-less: any discoverable one). */
  async authenticationOptions(tenantId: string, userId?: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const allow = userId
      ? await this.db.passkeyCredential.findMany({ where: { tenantId, userId }, select: { id: true, transports: true }, take: MAX_CREDENTIALS })
      : [];
    return generateAuthenticationOptions({
      rpID: this.rp.id,
      challenge: bytes(await this.challenges.issue({ purpose: "login", tenantId, userId })),
      timeout: this.challenges.timeoutMs,
      userVerification: "required",
      allowCredentials: allow.map((c) => ({ id: c.id, transports: c.transports as AuthenticatorTransport[] })),
    });
  }

  /**
   * Verifies a sign-in response; the person it proves, or a refusal. `userId` binds the ceremony to
   * one user (a second factor); without it any discoverable credential of the workspace may answer.
   */
  async authenticate(tenantId: string, response: AuthenticationResponseJSON, userId?: string): Promise<Person> {
    const stored = typeof response?.id === "string" ? await this.db.passkeyCredential.findUnique({ where: { id: response.id } }) : null;
    let consumed = false;
    const binding = { purpose: "login" as const, tenantId, userId };
    if (!stored || stored.tenantId !== tenantId || (userId !== undefined && stored.userId !== userId)) {
      // Still use the challenge up: one response, one try.
      const challenge = challengeOf(response);
      if (challenge) await this.challenges.consume(challenge, binding);
      throw passkeyRefused("unknown credential, or another workspace's or user's");
    }
    // Discoverable sign-in: the authenticator names the account; it must be the credential's owner.
    if (response.response?.userHandle && Buffer.from(response.response.userHandle, "base64url").toString("utf8") !== stored.userId) {
      const challenge = challengeOf(response);
      if (challenge) await this.challenges.consume(challenge, binding);
      throw passkeyRefused("user handle does not match the credential's user");
    }
    let verified;
    try {
      verified = await verifyAuthenticationResponse({
        response,
        expectedChallenge: async (c) => (consumed = await this.challenges.consume(c, binding)),
        expectedOrigin: this.rp.origin,
        expectedRPID: this.rp.id,
        requireUserVerification: true,
        credential: { id: stored.id, publicKey: Buffer.from(stored.publicKey, "base64url"), counter: Number(stored.counter), transports: stored.transports as AuthenticatorTransport[] },
      });
    } catch (e) {
      if (!consumed) {
        const challenge = challengeOf(response);
        if (challenge) await this.challenges.consume(challenge, binding);
      }
      throw passkeyRefused(e instanceof Error ? e.message : String(e));
    }
    if (!verified.verified) throw passkeyRefused("authentication not verified");
    // The counter moves forward once: a concurrent use of the same response cannot both win.
    const { count } = await this.db.passkeyCredential.updateMany({
      where: { id: stored.id, counter: stored.counter },
      data: { counter: BigInt(verified.authenticationInfo.newCounter), lastUsedAt: this.clock.now(), backedUp: verified.authenticationInfo.credentialBackedUp },
    });
    if (count !== 1) throw passkeyRefused("the credential's counter changed meanwhile");
    return { tenantId: stored.tenantId, userId: stored.userId };
  }

  /** Operator reset (CLI `toolgate users reset-mfa`). */
  async reset(tenantId: string, userId: string): Promise<void> {
    await this.db.passkeyCredential.deleteMany({ where: { tenantId, userId } });
  }
}

/** A challenge (base64url, as stored) as the bytes the options carry: the client echoes the same base64url. */
const bytes = (challenge: string): Uint8Array<ArrayBuffer> => new Uint8Array(Buffer.from(challenge, "base64url"));

/** The challenge inside a response's clientDataJSON, to consume it even when verification fails early. */
function challengeOf(response: AuthenticationResponseJSON): string | null {
  try {
    const data = JSON.parse(Buffer.from(response.response.clientDataJSON, "base64url").toString("utf8")) as { challenge?: unknown };
    return typeof data.challenge === "string" ? data.challenge : null;
  } catch {
    return null;
  }
}
