// HTTP Basic credentials as OAuth uses them: RFC 6749 §2.3.1 says the client id and secret are
// form-urlencoded before base64, so both parts are decoded with decodeURIComponent (+ as space).
export function parseBasicAuth(header: string | undefined): { id: string; secret: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/]+=*)\s*$/i.exec(header ?? "");
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return undefined;
  try {
    const unform = (s: string) => decodeURIComponent(s.replace(/\+/g, " "));
    return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

type BasicCredentials = { id: string; secret: string } | undefined;
const parsedOf = new WeakMap<object, BasicCredentials>();

/**
 * parseBasicAuth of the request's Authorization header, parsed once per request: the OAuth routes
 * read it twice (input hygiene, then client authentication).
 */
export function basicCredentialsOf(req: { headers: { authorization?: string } }): BasicCredentials {
  if (parsedOf.has(req)) return parsedOf.get(req);
  const header = req.headers.authorization;
  const creds = header === undefined ? undefined : parseBasicAuth(header);
  parsedOf.set(req, creds);
  return creds;
}
