// The manifest of an evidence export and its signature. The manifest is JSON text whose exact
// bytes are hashed (the next export's `previous_export.manifest_sha256`) and signed: the compact JWS
// carries those bytes as its payload (not detached), so `manifest.jws` alone proves what was signed
// and `toolgate evidence verify` checks that `manifest.json` is byte for byte that payload.
import { createHash } from "node:crypto";
import { CompactSign } from "jose";
import type { WrittenFile } from "./files";
import type { COLUMNS } from "./snapshot";

export const EVIDENCE_FORMAT = "toolgate-evidence/1";
export const EVIDENCE_JWS_TYP = "toolgate-evidence+jws";
export const MANIFEST_FILE = "manifest.json";
export const SIGNATURE_FILE = "manifest.jws";

export interface EvidenceManifest {
  format: typeof EVIDENCE_FORMAT;
  export_id: string;
  seq: number;
  workspace_id: string;
  application_id: string;
  application_name: string;
  application_state: string;
  as_of: string;
  generated_at: string;
  generated_by: { user_id: string; role: string };
  /** What runtime enforcement used at the time: the scan generation and the sdk-policy ETag. */
  policy_revision: { scan_generation: number; policy_etag: string | null };
  columns: typeof COLUMNS;
  /** Sorted by user_id, role_id, scope_id, tool_name, binding_id. */
  row_order: string[];
  /** Tools anyone with a valid token may call (not repeated per user). */
  public_tools: string[];
  files: WrittenFile[];
  previous_export: { export_id: string; seq: number; manifest_sha256: string } | null;
  signature: { format: "JWS"; alg: string; typ: string; kid: string; jwks_uri: string };
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** The manifest's bytes: pretty-printed JSON and a final newline (what is stored, served, hashed and signed). */
export function manifestText(m: EvidenceManifest): string {
  return JSON.stringify(m, null, 2) + "\n";
}

export async function signManifest(text: string, key: { kid: string; key: CryptoKey }, alg: string): Promise<string> {
  return new CompactSign(new TextEncoder().encode(text)).setProtectedHeader({ alg, typ: EVIDENCE_JWS_TYP, kid: key.kid }).sign(key.key);
}
