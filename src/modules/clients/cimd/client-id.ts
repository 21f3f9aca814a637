// Which client_ids are Client ID Metadata Document URLs, and which of those are acceptable
// (draft-ietf-oauth-client-id-metadata-document §3): https, a path other
// than "/", no "." or ".." segments, no fragment, no userinfo; a query is refused too (the draft
// says SHOULD NOT; refusing keeps one document per URL). Our own client_ids start "tgc_", never
// "https://", so the two kinds cannot collide.
import { strictUrl } from "../../../shared/urls";

/** Whether the client_id is meant as a metadata document URL (then it must also pass cimdUrl). */
export const isCimdClientId = (clientId: string): boolean => clientId.startsWith("https://");

/** The document URL, or why the client_id is not an acceptable one. */
export function cimdUrl(clientId: string): { ok: true; url: URL } | { ok: false; reason: string } {
  const r = strictUrl(clientId, { schemes: ["https:"], allowQuery: false });
  if (!r.ok) return { ok: false, reason: `the client_id URL ${r.reason}` };
  if (r.url.pathname === "/" || r.url.pathname === "") return { ok: false, reason: "the client_id URL must have a path" };
  // Compared as strings with the document's client_id (D4): the URL must already be in its normal form.
  if (r.href !== clientId) return { ok: false, reason: "the client_id URL is not in normalised form" };
  return { ok: true, url: r.url };
}
