// Validation of a fetched Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document
// §4, MCP 2025-11-25 "Client ID Metadata Documents", notes/mcp-auth.md D4): a JSON object whose
// client_id equals the URL it was fetched from (simple string comparison), with client_name and
// redirect_uris (MCP requires both); no shared secret: token_endpoint_auth_method must not be a
// client_secret_* method and client_secret / client_secret_expires_at must not appear. The rest
// is read like RFC 7591 metadata (registration-metadata.ts: redirect URI rules, grant types).
// Confidential CIMD clients (private_key_jwt with jwks/jwks_uri) are not supported yet: the token
// endpoint has no private_key_jwt authentication, so such a document is refused with that reason
// rather than accepted and then failing at the token endpoint.
import { RegistrationError, readClientMetadata, type ClientMetadata } from "../registration-metadata";

export type CimdMetadata = ClientMetadata & { client_name: string };

export function readCimdDocument(url: string, doc: unknown): { ok: true; metadata: CimdMetadata } | { ok: false; reason: string } {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return { ok: false, reason: "the metadata document is not a JSON object" };
  const d = doc as Record<string, unknown>;
  if (d.client_id !== url) return { ok: false, reason: "the metadata document's client_id differs from its URL" };
  if (typeof d.client_name !== "string" || d.client_name.trim() === "") return { ok: false, reason: "the metadata document has no client_name" };
  if (d.client_secret !== undefined || d.client_secret_expires_at !== undefined) return { ok: false, reason: "the metadata document must not contain client_secret" };
  const method = d.token_endpoint_auth_method ?? "none";
  if (typeof method === "string" && method.startsWith("client_secret_")) return { ok: false, reason: `token_endpoint_auth_method ${method}: a metadata document cannot use a shared secret` };
  if (method !== "none") return { ok: false, reason: `token_endpoint_auth_method ${String(method)} is not supported here (use none)` };
  try {
    const metadata = readClientMetadata({ ...d, token_endpoint_auth_method: "none" });
    return { ok: true, metadata: { ...metadata, client_name: metadata.client_name ?? d.client_name.trim() } };
  } catch (e) {
    if (e instanceof RegistrationError) return { ok: false, reason: `the metadata document is invalid: ${e.description}` };
    throw e;
  }
}
