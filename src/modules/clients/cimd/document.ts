// Validation of a fetched Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document
// §4, MCP 2025-11-25 "Client ID Metadata Documents"): a JSON object whose
// client_id equals the URL it was fetched from (simple string comparison), with client_name and
// redirect_uris (MCP requires both); no shared secret: token_endpoint_auth_method must not be a
// client_secret_* method and client_secret / client_secret_expires_at must not appear. The rest
// is read like RFC 7591 metadata (registration-metadata.ts: redirect URI rules, grant types).
// A confidential CIMD client uses private_key_jwt (RFC 7523 §2.2; a document may not carry a shared secret, draft-ietf-oauth-client-id-metadata-document §4.1) with
// exactly one of `jwks` (its public keys inline, RFC 7591 §2) or `jwks_uri` (https; fetched at the
// token endpoint through the same SSRF guard): docs/decisions/0025-private-key-jwt.md.
import { strictUrl } from "../../../shared/urls";
import { RegistrationError, readClientMetadata, type ClientMetadata } from "../registration-metadata";

/** A public JWK as a document may carry it (checked for shape here; jose checks it as a key). */
export type PublicJwk = Record<string, unknown> & { kty: string };

export type CimdMetadata = Omit<ClientMetadata, "token_endpoint_auth_method"> & {
  client_name: string;
  token_endpoint_auth_method: "none" | "private_key_jwt";
  jwks?: { keys: PublicJwk[] };
  jwks_uri?: string;
};

const MAX_KEYS = 10;
/** Members of private or symmetric JWKs (RFC 7518 §6): a document is public, so none may appear. */
const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

export type Read<T> = { ok: true; value: T } | { ok: false; reason: string };

/** A public JWK Set (RFC 7517 §5) of 1 to MAX_KEYS keys, none private or symmetric. */
export function readPublicJwks(v: unknown): Read<{ keys: PublicJwk[] }> {
  const keys = typeof v === "object" && v !== null && !Array.isArray(v) ? (v as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(keys) || keys.length === 0 || keys.length > MAX_KEYS) return { ok: false, reason: `jwks must be an object with a keys array of 1 to ${MAX_KEYS} keys` };
  for (const [i, k] of keys.entries()) {
    if (typeof k !== "object" || k === null || Array.isArray(k) || typeof (k as PublicJwk).kty !== "string") return { ok: false, reason: `jwks.keys[${i}] is not a JWK` };
    if (PRIVATE_MEMBERS.some((m) => m in k)) return { ok: false, reason: `jwks.keys[${i}] is a private or symmetric key` };
  }
  return { ok: true, value: { keys: keys as PublicJwk[] } };
}

function readJwksUri(v: unknown): Read<string> {
  const r = typeof v === "string" && v.length <= 2048 ? strictUrl(v, { schemes: ["https:"], allowQuery: true }) : null;
  if (!r?.ok) return { ok: false, reason: `jwks_uri must be an https URL${r && !r.ok ? `: it ${r.reason}` : ""}` };
  return { ok: true, value: r.href };
}

/** The key source of a private_key_jwt document: exactly one of jwks / jwks_uri. */
function readKeySource(d: Record<string, unknown>): Read<{ jwks: { keys: PublicJwk[] } } | { jwks_uri: string }> {
  const hasJwks = d.jwks !== undefined && d.jwks !== null;
  const hasUri = d.jwks_uri !== undefined && d.jwks_uri !== null;
  if (hasJwks === hasUri) return { ok: false, reason: "token_endpoint_auth_method private_key_jwt needs exactly one of jwks and jwks_uri" };
  if (hasJwks) {
    const r = readPublicJwks(d.jwks);
    return r.ok ? { ok: true, value: { jwks: r.value } } : r;
  }
  const r = readJwksUri(d.jwks_uri);
  return r.ok ? { ok: true, value: { jwks_uri: r.value } } : r;
}

export function readCimdDocument(url: string, doc: unknown): { ok: true; metadata: CimdMetadata } | { ok: false; reason: string } {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return { ok: false, reason: "the metadata document is not a JSON object" };
  const d = doc as Record<string, unknown>;
  if (d.client_id !== url) return { ok: false, reason: "the metadata document's client_id differs from its URL" };
  if (typeof d.client_name !== "string" || d.client_name.trim() === "") return { ok: false, reason: "the metadata document has no client_name" };
  if (d.client_secret !== undefined || d.client_secret_expires_at !== undefined) return { ok: false, reason: "the metadata document must not contain client_secret" };
  const method = d.token_endpoint_auth_method ?? "none";
  if (typeof method === "string" && method.startsWith("client_secret_")) return { ok: false, reason: `token_endpoint_auth_method ${method}: a metadata document cannot use a shared secret` };
  if (method !== "none" && method !== "private_key_jwt") return { ok: false, reason: `token_endpoint_auth_method ${String(method)} is not supported here (use none or private_key_jwt)` };
  let keys: { jwks: { keys: PublicJwk[] } } | { jwks_uri: string } | undefined;
  if (method === "private_key_jwt") {
    const r = readKeySource(d);
    if (!r.ok) return { ok: false, reason: `the metadata document is invalid: ${r.reason}` };
    keys = r.value;
  }
  try {
    const metadata = readClientMetadata({ ...d, token_endpoint_auth_method: "none" });
    return { ok: true, metadata: { ...metadata, ...keys, token_endpoint_auth_method: method, client_name: metadata.client_name ?? d.client_name.trim() } };
  } catch (e) {
    if (e instanceof RegistrationError) return { ok: false, reason: `the metadata document is invalid: ${e.description}` };
    throw e;
  }
}
