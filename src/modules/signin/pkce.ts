// PKCE (RFC 7636). Only S256 is accepted: MCP clients always send it, and `plain` offers no
// protection against a leaked authorization request (OAuth 2.1 §4.1.1,
// docs/decisions/0009-pkce-s256-only.md).
import { createHash } from "node:crypto";
import { safeEqual } from "../../shared/crypto";

/** RFC 7636 §4.2: 43..128 characters of [A-Z a-z 0-9 - . _ ~]. The challenge is base64url(SHA-256), 43 chars. */
export const CODE_VERIFIER_RE = /^[A-Za-z0-9\-._~]{43,128}$/;
export const CODE_CHALLENGE_RE = /^[A-Za-z0-9_-]{43}$/;

export function s256(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}

export function verifyPkce(verifier: string, challenge: string): boolean {
  return CODE_VERIFIER_RE.test(verifier) && safeEqual(s256(verifier), challenge);
}
