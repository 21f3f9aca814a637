// Verifying an evidence export in the browser, the checks `toolgate evidence verify` makes
// (src/modules/evidence/verify.ts), with WebCrypto:
//   signature  manifest.jws (ES256, typ toolgate-evidence+jws) verifies with the key its kid names
//              in this Toolgate's /oauth/jwks (RFC 7515 §5.2; ES256 signatures are R||S, RFC 7518 §3.4,
//              which is WebCrypto's ECDSA format)
//   manifest   manifest.json is byte for byte the signed payload
//   files      each data file's SHA-256 and size equal the manifest's
//   chain      the manifest names the previous export's manifest SHA-256, which is what that
//              export's manifest.json hashes to (when the previous export is listed)
// Files are downloaded whole into memory here; for very large exports the CLI streams them.
import { rest } from "../../api/rest";

export interface ExportView {
  export_id: string;
  seq: number;
  created_at: string;
  manifest_sha256: string;
  manifest: { files: { name: string; rows: number; bytes: number; sha256: string }[]; previous_export: { export_id: string; seq: number; manifest_sha256: string } | null; signature: { kid: string } };
  files: { name: string; path: string }[];
}

export interface Verification {
  ok: boolean;
  checks: { check: "signature" | "manifest" | "files" | "chain"; ok: boolean; detail: string }[];
}

const EVIDENCE_JWS_TYP = "toolgate-evidence+jws";

function b64url(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(s.length / 4) * 4, "="));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

const hex = (b: ArrayBuffer) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, "0")).join("");
export const sha256Hex = async (b: BufferSource) => hex(await crypto.subtle.digest("SHA-256", b));

/** One file of an export, as bytes (the admin token rides along; no cookie). */
export async function fetchFile(token: string, path: string): Promise<ArrayBuffer> {
  const res = await fetch(path, { headers: { authorization: `Bearer ${token}` }, credentials: "omit" });
  if (!res.ok) throw new Error(`${path} answered ${res.status}`);
  return res.arrayBuffer();
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

export async function verifyExport(token: string, e: ExportView, previous: ExportView | undefined): Promise<Verification> {
  const checks: Verification["checks"] = [];
  const path = (name: string) => e.files.find((f) => f.name === name)!.path;
  const [jwsBytes, manifestBytes, jwks] = await Promise.all([fetchFile(token, path("manifest.jws")), fetchFile(token, path("manifest.json")), rest<{ keys: (JsonWebKey & { kid?: string })[] }>("GET", "/oauth/jwks")]);
  const jws = new TextDecoder().decode(jwsBytes).trim();
  const [h = "", p = "", sig = ""] = jws.split(".");
  let payload: Uint8Array | null = null;
  try {
    const header = JSON.parse(new TextDecoder().decode(b64url(h))) as { alg?: string; typ?: string; kid?: string };
    if (header.alg !== "ES256" || header.typ !== EVIDENCE_JWS_TYP) throw new Error(`alg ${header.alg}, typ ${header.typ}: not an ES256 ${EVIDENCE_JWS_TYP}`);
    const jwk = jwks.keys.find((k) => k.kid === header.kid);
    if (!jwk) throw new Error(`signed with key ${header.kid}, which /oauth/jwks does not publish`);
    const key = await crypto.subtle.importKey("jwk", { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
    const ok = await crypto.subtle.verify({ name: "ECDSA", hash: "SHA-256" }, key, b64url(sig), new TextEncoder().encode(`${h}.${p}`));
    if (!ok) throw new Error("the signature does not verify (tampered signature or manifest)");
    payload = b64url(p);
    checks.push({ check: "signature", ok: true, detail: `signed by key ${header.kid}, published at /oauth/jwks` });
  } catch (err) {
    checks.push({ check: "signature", ok: false, detail: (err as Error).message });
  }
  if (payload) {
    const same = sameBytes(payload, new Uint8Array(manifestBytes));
    checks.push({ check: "manifest", ok: same, detail: same ? "manifest.json is byte for byte the signed manifest" : "manifest.json differs from the signed manifest" });
  }
  const bad: string[] = [];
  for (const f of e.manifest.files) {
    const bytes = await fetchFile(token, path(f.name));
    const got = await sha256Hex(bytes);
    if (got !== f.sha256 || bytes.byteLength !== f.bytes) bad.push(`${f.name}: SHA-256 ${got} (${bytes.byteLength} bytes), manifest says ${f.sha256} (${f.bytes} bytes)`);
  }
  checks.push({ check: "files", ok: bad.length === 0, detail: bad.length === 0 ? `${e.manifest.files.length} files match their SHA-256 and size` : bad.join("; ") });
  const link = e.manifest.previous_export;
  if (link && previous && previous.export_id === link.export_id) {
    const got = await sha256Hex(await fetchFile(token, previous.files.find((f) => f.name === "manifest.json")!.path));
    checks.push({ check: "chain", ok: got === link.manifest_sha256, detail: got === link.manifest_sha256 ? `chained to export ${link.seq}` : `export ${link.seq}'s manifest hashes to ${got}, not ${link.manifest_sha256}` });
  } else if (link && previous) {
    // The export before it is listed, and it is not the one the manifest names: the chain is broken (as `toolgate evidence verify` says).
    checks.push({ check: "chain", ok: false, detail: `names export ${link.export_id} before it, but the export before it is ${previous.export_id}` });
  } else if (link) {
    checks.push({ check: "chain", ok: true, detail: `names export ${link.seq} before it (not on this page: not checked)` });
  } else {
    checks.push({ check: "chain", ok: e.seq === 1, detail: e.seq === 1 ? "the first export of the application" : `export ${e.seq} names no previous export` });
  }
  return { ok: checks.every((c) => c.ok), checks };
}
