// The account password (scrypt, tenancy module): RFC 8176 "pwd".
import type { Factor } from "./types";

export const passwordFactor: Factor = { id: "pwd", amr: ["pwd"], kind: "knowledge", second: false, multiFactorAlone: false, phishingResistant: false };
