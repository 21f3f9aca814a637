// How a person proved who they are, one file per way (the extension point of docs/openid-provider.md
// "Factors"): a factor names itself in the session and in audit events (`id`), says what an ID
// token's `amr` reports for it (RFC 8176 values) and what kind of proof it is. Adding a way to sign
// in (issue 20's upstream identity providers) is one file here and one line in index.ts; sessions,
// ID tokens, admin JWTs and the MFA rules follow from the list.

export type FactorKind = "knowledge" | "possession" | "federated";

export interface Factor {
  /** Stable id stored in sessions, codes and refresh tokens, and reported to audit ("pwd", "otp", ...). */
  readonly id: string;
  /** RFC 8176 Authentication Method Reference values this factor contributes to `amr`. */
  readonly amr: readonly string[];
  readonly kind: FactorKind;
  /**
   * A second factor: it can complete a sign-in that a workspace's MFA rule requires, after the
   * password. A passkey with user verification (required here) is multi-factor on its own.
   */
  readonly second: boolean;
  /** Multi-factor on its own (possession + user verification): satisfies an MFA rule alone. */
  readonly multiFactorAlone: boolean;
  /** Resists phishing (origin-bound: WebAuthn). */
  readonly phishingResistant: boolean;
}
