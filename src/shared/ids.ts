import { randomBytes, randomUUID } from "node:crypto";

// Randomness is injected (like the clock) so tests can make ids predictable when they need to.
export interface IdGenerator {
  uuid(): string;
  /** URL-safe random token with `bytes` bytes of entropy (base64url). */
  token(bytes: number): string;
}

export const randomIds: IdGenerator = {
  uuid: () => randomUUID(),
  token: (bytes) => randomBytes(bytes).toString("base64url"),
};

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: string): boolean => UUID_RE.test(s);
