// The cockpit (docs/cockpit.md): the web console built into dist/cockpit/ by `npm run build`,
// served from this origin at /cockpit so it talks to /graphql and the admin REST paths without
// CORS, with no CDN (it works offline).
//   /cockpit/assets/<name>-<hash>.<ext>  immutable for a year (the name changes with the content),
//                                        sent precompressed (brotli, else gzip) when accepted
//   /cockpit/ and every other /cockpit/... path: the page (index.html; the client routes it),
//                                        no-store, with a CSP that allows no inline script
// Files are read on first request and kept (a few hundred kB); a build while the server runs is
// picked up by the next restart.
import { Router, type Request, type Response } from "express";
import { existsSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const COCKPIT_PATH = "/cockpit";

/**
 * Scripts and styles only from this origin, never inline; images from here or data: (the TOTP QR
 * code is an SVG data: URI); requests only to this origin; no framing, no plugins, no <base>.
 */
export const COCKPIT_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; manifest-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".json": "application/json",
};

interface Encoded {
  plain: Buffer;
  br?: Buffer;
  gzip?: Buffer;
  type: string;
}

/** dist/cockpit/ at the repository root, from src/rest/ (tsx) and dist/rest/ (compiled) alike. */
export const defaultCockpitDir = () => fileURLToPath(new URL("../../dist/cockpit/", import.meta.url));

const SECURITY_HEADERS = { "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Resource-Policy": "same-origin" };

export function cockpitRouter(dir: string = defaultCockpitDir()): Router {
  const r = Router();
  const files = new Map<string, Encoded | null>();
  const read = (name: string): Encoded | null => {
    if (files.has(name)) return files.get(name)!;
    const file = join(dir, name);
    const maybe = (suffix: string) => (existsSync(file + suffix) ? readFileSync(file + suffix) : undefined);
    const entry = existsSync(file) ? { plain: readFileSync(file), br: maybe(".br"), gzip: maybe(".gz"), type: TYPES[extname(name)] ?? "application/octet-stream" } : null;
    // Only hits are kept: a probe for missing names cannot grow the map.
    if (entry) files.set(name, entry);
    return entry;
  };
  const send = (req: Request, res: Response, f: Encoded) => {
    const accepts = String(req.headers["accept-encoding"] ?? "");
    const [body, encoding] = f.br && /\bbr\b/.test(accepts) ? [f.br, "br"] : f.gzip && /\bgzip\b/.test(accepts) ? [f.gzip, "gzip"] : [f.plain, undefined];
    if (encoding) res.set("Content-Encoding", encoding);
    res.set({ "Content-Type": f.type, "Content-Length": String(body.length), Vary: "Accept-Encoding", ...SECURITY_HEADERS });
    res.status(200).end(req.method === "HEAD" ? undefined : body);
  };

  // /cockpit -> /cockpit/ (Express matches both to this path unless told apart by the raw URL).
  r.get(COCKPIT_PATH, (req, res, next) => {
    const [path, query] = req.originalUrl.split(/\?(.*)/s);
    if (path!.endsWith("/")) return next();
    res.redirect(308, `${COCKPIT_PATH}/${query ? `?${query}` : ""}`);
  });
  // Hashed names only: [A-Za-z0-9_-] and dots, no path separators.
  r.get(`${COCKPIT_PATH}/assets/:name`, (req, res) => {
    const name = String(req.params.name);
    const f = /^[\w.-]+$/.test(name) && !name.endsWith(".br") && !name.endsWith(".gz") ? read(`assets/${name}`) : null;
    if (!f) return void res.status(404).set("Cache-Control", "no-store").json({ error: "not found" });
    res.set("Cache-Control", "public, max-age=31536000, immutable");
    send(req, res, f);
  });
  r.get([`${COCKPIT_PATH}/`, `${COCKPIT_PATH}/*rest`], (req, res) => {
    res.set({ "Cache-Control": "no-store", "Content-Security-Policy": COCKPIT_CSP, "X-Frame-Options": "DENY" });
    const page = read("index.html");
    if (!page) {
      return void res
        .status(503)
        .type("text/plain")
        .send("The cockpit is not built. Run `npm run build` (it needs the devDependencies: `npm install` or `npm ci` without --omit=dev), then restart Toolgate.\n");
    }
    send(req, res, page);
  });
  return r;
}
