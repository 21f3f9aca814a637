// Small, well-known primitives from node:crypto. No hand-rolled JWT/JWK code lives here (jose
// does that); these are hashing, constant-time comparison, AEAD for keys at rest, and scrypt.
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, scrypt, timingSafeEqual } from "node:crypto";

export const sha256Base64url = (value: string): string => createHash("sha256").update(value).digest("base64url");

/**
 * Peppered HMAC-SHA-256 for 256-bit random secrets (client secrets, introspection secrets).
 * A slow password hash adds nothing for such secrets and would make the token endpoint slow
 * (docs/decisions/0003-client-secrets.md, measured costs in 0006-hot-paths-answer-from-memory.md);
 * the pepper keeps a stolen database from being enough.
 */
export function hashSecret(pepper: Buffer, secret: string): string {
  return createHmac("sha256", pepper).update(secret, "utf8").digest("base64url");
}

/** Constant-time comparison of two strings (lengths leak, contents do not). */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, "utf8");
  const bb = Buffer.from(b, "utf8");
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab); // keep the work similar on both branches
    return false;
  }
  return timingSafeEqual(ab, bb);
}

export function verifySecret(pepper: Buffer, secret: string, storedHash: string): boolean {
  return safeEqual(hashSecret(pepper, secret), storedHash);
}

// ---- AES-256-GCM for private keys at rest: "v1.<iv>.<tag>.<ciphertext>" (base64url parts)
export function encryptAtRest(key: Buffer, plaintext: string, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return ["v1", iv.toString("base64url"), cipher.getAuthTag().toString("base64url"), ct.toString("base64url")].join(".");
}

export function decryptAtRest(key: Buffer, sealed: string, aad: string): string {
  const [v, iv, tag, ct] = sealed.split(".");
  if (v !== "v1" || !iv || !tag || ct === undefined) throw new Error("unsupported sealed value");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(ct, "base64url")), decipher.final()]).toString("utf8");
}

/** Derives independent sub-keys from the master key (HMAC as a PRF, one label per purpose). */
export function deriveKey(master: Buffer, label: string): Buffer {
  return createHmac("sha256", master).update(`toolgate:${label}`).digest();
}

// ---- Passwords: scrypt (memory-hard), format "scrypt$N$r$p$salt$hash"
const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 };

function scryptAsync(password: string, salt: Buffer, N: number, r: number, p: number, keylen: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, keylen, { N, r, p, maxmem: 64 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT.N, SCRYPT.r, SCRYPT.p, SCRYPT.keylen);
  return ["scrypt", SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, salt, hash] = stored.split("$");
  if (alg !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const actual = await scryptAsync(password, Buffer.from(salt, "base64url"), Number(n), Number(r), Number(p), expected.length);
  return timingSafeEqual(actual, expected);
}

/** A fixed hash to verify against when the user does not exist, so timing does not reveal it. */
export const DUMMY_PASSWORD_HASH = "scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
