// A time-based one-time password from an authenticator app (RFC 6238): RFC 8176 "otp".
import type { Factor } from "./types";

export const totpFactor: Factor = { id: "otp", amr: ["otp"], kind: "possession", second: true, multiFactorAlone: false, phishingResistant: false };
