// A passkey (WebAuthn, user verification required): proof of possession of a hardware- or
// platform-protected key (RFC 8176 "hwk") unlocked by the user (PIN or biometric: "user"), bound to
// the origin, so phishing-resistant and multi-factor on its own.
import type { Factor } from "./types";

export const passkeyFactor: Factor = { id: "passkey", amr: ["hwk", "user"], kind: "possession", second: true, multiFactorAlone: true, phishingResistant: true };
