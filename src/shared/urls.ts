// One strict reading of every URL Toolgate stores (redirect URIs, a server's public_base_url) and
// of the redirect URI a client presents: parsed once by the WHATWG URL parser, refused when parsers
// could disagree about it, and kept in its normalised form (lower-case scheme and host, no default
// port, dot segments resolved), so what is stored is what every later comparison means.
//
// Refused, because two URL parsers (ours, a browser's, the client's) could read a different host
// or path from the same text: backslashes (WHATWG reads "\" as "/" in special schemes, RFC 3986 does
// not), whitespace and control characters (stripped by WHATWG, kept by others), a scheme without
// "//" ("https:evil.example" is a valid WHATWG URL with host evil.example), userinfo ("user@"
// before the host), "*" in the host (a wildcard is never a literal host), and path segments that
// are dot segments once percent-decoded ("%2e%2e": RFC 3986 §6.2.2.2 may resolve them).
export type StrictUrl = { ok: true; url: URL; href: string } | { ok: false; reason: string };

export interface StrictUrlOptions {
  /** Allowed schemes, with their colon ("https:"). */
  schemes: readonly string[];
  allowQuery: boolean;
}

const SCHEME_WITH_AUTHORITY = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/]/;

export function strictUrl(input: string, opts: StrictUrlOptions): StrictUrl {
  if (input.includes("\\")) return { ok: false, reason: "must not contain backslashes" };
  if (/[\s\u0000-\u001f\u007f]/.test(input)) return { ok: false, reason: "must not contain spaces or control characters" };
  if (!SCHEME_WITH_AUTHORITY.test(input)) return { ok: false, reason: "must be an absolute URL with // and a host" };
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { ok: false, reason: "is not a valid URL" };
  }
  if (!opts.schemes.includes(url.protocol)) return { ok: false, reason: `must use ${opts.schemes.map((s) => s.slice(0, -1)).join(" or ")}` };
  if (url.username || url.password || authorityOf(input).includes("@")) return { ok: false, reason: "must not contain credentials (user@host)" };
  if (url.hostname.includes("*")) return { ok: false, reason: "must not contain a wildcard host" };
  if (input.includes("#")) return { ok: false, reason: "must not contain a fragment" };
  if (!opts.allowQuery && input.includes("?")) return { ok: false, reason: "must not contain a query" };
  if (hasDotSegment(pathOf(input))) return { ok: false, reason: "must not contain . or .. path segments (also percent-encoded)" };
  return { ok: true, url, href: url.href };
}

/** The raw authority of an input that passed SCHEME_WITH_AUTHORITY (between "//" and the path). */
function authorityOf(input: string): string {
  const rest = input.slice(input.indexOf("//") + 2);
  return rest.split(/[/?#]/, 1)[0]!;
}

function pathOf(input: string): string {
  const rest = input.slice(input.indexOf("//") + 2);
  const start = rest.search(/[/?#]/);
  if (start < 0 || rest[start] !== "/") return "";
  return rest.slice(start).split(/[?#]/, 1)[0]!;
}

/** Whether a path has a segment that is "." or ".." once percent-decoded. */
export function hasDotSegment(path: string): boolean {
  return path.split("/").some((seg) => {
    const decoded = seg.replace(/%2e/gi, ".");
    return decoded === "." || decoded === "..";
  });
}
