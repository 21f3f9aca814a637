// One of the ten single-use recovery codes given at TOTP enrolment. It stands in for the
// authenticator, so it reports as a one-time password (RFC 8176 "otp"); the session and audit keep
// the distinct id so a recovery can be told from an authenticator code.
import type { Factor } from "./types";

export const recoveryCodeFactor: Factor = { id: "recovery_code", amr: ["otp"], kind: "possession", second: true, multiFactorAlone: false, phishingResistant: false };
