// The browser-session cookie (docs/openid-provider.md "Sessions"): HttpOnly (no script reads it),
// SameSite=Lax (not sent on cross-site POSTs: the sign-in pages' forms and the self-service JSON
// calls are same-site; a cross-site link to /oauth/authorize still carries it, which is what SSO
// needs), Secure and the __Host- prefix when the public URL is https (no subdomain can set or
// shadow it), Path=/ (the issuer may sit under a path a proxy strips). Its value is 256 random
// bits; the server stores only its hash.
import type { Request, Response } from "express";
import type { SessionCookie } from "../modules/signin";

export interface CookieSettings {
  name: string;
  secure: boolean;
}

export function cookieSettings(publicUrl: string): CookieSettings {
  const secure = new URL(publicUrl).protocol === "https:";
  return { name: secure ? "__Host-toolgate_session" : "toolgate_session", secure };
}

/** The session cookie's value in the request, if any (the first of that name). */
export function readSessionCookie(req: Request, s: CookieSettings): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === s.name) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{1,128}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

export function writeSessionCookie(res: Response, s: CookieSettings, cookie: SessionCookie | undefined): void {
  if (!cookie) return;
  const attributes = ["Path=/", "HttpOnly", "SameSite=Lax", ...(s.secure ? ["Secure"] : [])];
  if ("clear" in cookie) res.append("Set-Cookie", [`${s.name}=`, "Max-Age=0", ...attributes].join("; "));
  else res.append("Set-Cookie", [`${s.name}=${cookie.value}`, `Max-Age=${cookie.maxAgeSeconds}`, ...attributes].join("; "));
}

/**
 * Cookie-authenticated writes come from our own pages only: a browser names the calling page's
 * origin (Origin, Sec-Fetch-Site); a request that says it comes from elsewhere is refused. (SameSite
 * already keeps the cookie off cross-site POSTs; this also covers same-site other origins.)
 */
export function fromOwnOrigin(req: Request, publicUrl: string): boolean {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== new URL(publicUrl).origin) return false;
  const site = req.headers["sec-fetch-site"];
  return site === undefined || site === "same-origin" || site === "none";
}
