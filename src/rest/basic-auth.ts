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
