// Signed, short-lived tickets that carry the state of the sign-in between the login page and the
// consent page without a server-side session or a cookie: base64url(JSON) + "." + HMAC-SHA-256.
// The purpose is part of the MAC, so a login ticket can never be replayed as a consent ticket.
import { createHmac } from "node:crypto";
import { safeEqual } from "../../shared/crypto";

export type TicketPurpose = "authorize" | "consent" | "second_factor" | "resume" | "admin_mfa" | "logout" | "federation" | "admin_sso";

export class TicketSealer {
  constructor(
    private readonly key: Buffer,
    private readonly now: () => Date,
  ) {}

  private mac(purpose: TicketPurpose, body: string): string {
    return createHmac("sha256", this.key).update(`${purpose}.${body}`).digest("base64url");
  }

  seal(purpose: TicketPurpose, payload: object, ttlSeconds: number): string {
    const body = Buffer.from(JSON.stringify({ ...payload, exp: Math.floor(this.now().getTime() / 1000) + ttlSeconds })).toString("base64url");
    return `${body}.${this.mac(purpose, body)}`;
  }

  open<T>(purpose: TicketPurpose, ticket: string | undefined): T | null {
    if (!ticket) return null;
    const [body, mac] = ticket.split(".");
    if (!body || !mac || !safeEqual(mac, this.mac(purpose, body))) return null;
    try {
      const payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as T & { exp: number };
      return payload.exp > Math.floor(this.now().getTime() / 1000) ? payload : null;
    } catch {
      return null;
    }
  }
}
