// Fetches a Client ID Metadata Document with the same guard as a scan (src/shared/outbound,
// fetch-json.ts): pinned to checked public addresses, no redirects, only 200, at most 5 KB, within
// a short deadline (draft-ietf-oauth-client-id-metadata-document §4 and §6.5: no redirects, special-use addresses refused, docs/decisions/0007-discovery.md); its Cache-Control max-age, bounded, says how long
// it may be reused (D6).
import { fetchJsonDocument, type FetchedJson, type OutboundFetchOptions } from "../../../shared/outbound/fetch-json";

export const CIMD_MAX_BYTES = 5 * 1024;
/** Reuse bounds of a fetched document: honour the server's max-age within them (D6). */
export const CIMD_CACHE = { defaultSeconds: 300, maxSeconds: 86_400 } as const;

export type CimdFetchOptions = OutboundFetchOptions;
export type FetchedDocument = FetchedJson;

export function fetchCimdDocument(url: URL, opts: CimdFetchOptions): Promise<FetchedDocument> {
  return fetchJsonDocument(url, opts, { maxBytes: CIMD_MAX_BYTES, reuse: CIMD_CACHE, what: "the metadata document" });
}
