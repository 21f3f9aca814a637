// RFC 6238 time-based one-time passwords (HMAC-SHA-1, 6 digits, 30 s steps: what every
// authenticator app reads from an otpauth:// URI) with the maintained `otpauth` library. A code is
// accepted for the current step and one step either side (RFC 6238 §5.2: clock drift and
// transmission delay), and each step at most once per user (the caller stores the step).
import { Secret, TOTP, URI } from "otpauth";
import QRCode from "qrcode";

export const TOTP_PERIOD_S = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of now. */
export const TOTP_WINDOW = 1;

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32; // 160 bits, RFC 4226 §4 R6 recommends it
}

function totp(secretBase32: string, label = "account", issuer = "Toolgate"): TOTP {
  return new TOTP({ issuer, label, algorithm: "SHA1", digits: TOTP_DIGITS, period: TOTP_PERIOD_S, secret: Secret.fromBase32(secretBase32) });
}

/** The time step a code matches around `now` (within the window), or null. */
export function matchingStep(secretBase32: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totp(secretBase32).validate({ token: code, timestamp: now.getTime(), window: TOTP_WINDOW });
  if (delta === null) return null;
  return Math.floor(now.getTime() / 1000 / TOTP_PERIOD_S) + delta;
}

/** The otpauth:// URI an authenticator app imports (label "<issuer>:<account>"). */
export function otpauthUri(secretBase32: string, account: string, issuer: string): string {
  return URI.stringify(totp(secretBase32, account, issuer));
}

/** The URI as a QR code, an SVG data URI (no canvas, no script: an <img> shows it). */
export async function qrCodeDataUri(text: string): Promise<string> {
  const svg = await QRCode.toString(text, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`;
}
