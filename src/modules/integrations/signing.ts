// Standard Webhooks signatures (https://www.standardwebhooks.com/, "Signature scheme"): the
// secret is `whsec_` + base64 of random bytes; each delivery carries
//   webhook-id:        the message id (the same on every retry and redelivery: receivers dedupe on it)
//   webhook-timestamp: Unix seconds of this attempt
//   webhook-signature: "v1," + base64(HMAC-SHA256(secret bytes, "<id>.<timestamp>.<body>"))
// Receivers verify with any implementation of the scheme (the tests use the `standardwebhooks`
// package); the body is sent exactly as signed.
import { createHmac, randomBytes } from "node:crypto";

const PREFIX = "whsec_";
/** 192 bits, within the scheme's 24 to 64 bytes. */
const SECRET_BYTES = 24;

export function newWebhookSecret(): string {
  return PREFIX + randomBytes(SECRET_BYTES).toString("base64");
}

export function signatureOf(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, "base64");
  return `v1,${createHmac("sha256", key).update(`${messageId}.${timestampSeconds}.${body}`, "utf8").digest("base64")}`;
}

export function webhookHeaders(secret: string, messageId: string, at: Date, body: string): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    "content-type": "application/json",
    "user-agent": "Toolgate-Webhooks/1",
    "webhook-id": messageId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signatureOf(secret, messageId, timestamp, body),
  };
}
