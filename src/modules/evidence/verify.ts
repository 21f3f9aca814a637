// Offline verification of downloaded evidence exports (`toolgate evidence verify <dir>`), in the
// spirit of `aws cloudtrail validate-logs`. <dir> holds one export (manifest.json, manifest.jws and
// the data files) or several, one per subdirectory. For each export, in this order:
//   signature  manifest.jws verifies with the key named by its kid, from the key set the operator
//              gives (a JWKS URL or a pinned key file; never a URL read from the export itself)
//   manifest   manifest.json is byte for byte the signed payload
//   files      each file's SHA-256 and size equal the manifest's
//   chain      exports of one application, ordered by seq, have no gap, and each names the
//              SHA-256 of the previous one's manifest.json
// Every problem names which of the four failed, the export and the file.
import { createHash } from "node:crypto";
import { createReadStream, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { compactVerify, decodeProtectedHeader, importJWK, type JWK } from "jose";
import { EVIDENCE_JWS_TYP, MANIFEST_FILE, SIGNATURE_FILE, sha256Hex, type EvidenceManifest } from "./manifest";

export type ProblemKind = "signature" | "manifest" | "file" | "chain";

export interface EvidenceProblem {
  kind: ProblemKind;
  export: string;
  message: string;
}

export interface EvidenceReport {
  ok: boolean;
  exports: { dir: string; export_id: string | null; application_id: string | null; seq: number | null; files: number }[];
  problems: EvidenceProblem[];
}

/** A key set: the public JWKs that may have signed (by kid). */
export type KeySet = { keys: JWK[] };

async function fileSha256(path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash("sha256");
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: hash.digest("hex"), bytes };
}

/** The export directories under `dir`: itself when it holds a manifest, else its subdirectories that do. */
function exportDirs(dir: string): string[] {
  if (existsSync(join(dir, MANIFEST_FILE))) return [dir];
  return readdirSync(dir)
    .map((n) => join(dir, n))
    .filter((p) => statSync(p).isDirectory() && existsSync(join(p, MANIFEST_FILE)))
    .sort();
}

export async function verifyEvidence(dir: string, keySet: KeySet): Promise<EvidenceReport> {
  const problems: EvidenceProblem[] = [];
  const report: EvidenceReport["exports"] = [];
  const verified: { manifest: EvidenceManifest; text: string; dir: string }[] = [];
  const dirs = exportDirs(dir);
  if (dirs.length === 0) problems.push({ kind: "manifest", export: dir, message: `no ${MANIFEST_FILE} in ${dir} or its subdirectories` });
  for (const d of dirs) {
    const text = readFileSync(join(d, MANIFEST_FILE), "utf8");
    const problem = (kind: ProblemKind, message: string) => problems.push({ kind, export: d, message: `${kind}: ${message}` });
    let manifest: EvidenceManifest | null = null;
    try {
      manifest = JSON.parse(text) as EvidenceManifest;
    } catch {
      problem("manifest", `${MANIFEST_FILE} is not JSON (tampered manifest)`);
    }
    report.push({ dir: d, export_id: manifest?.export_id ?? null, application_id: manifest?.application_id ?? null, seq: manifest?.seq ?? null, files: manifest?.files?.length ?? 0 });
    // 1. signature
    const jwsPath = join(d, SIGNATURE_FILE);
    if (!existsSync(jwsPath)) {
      problem("signature", `${SIGNATURE_FILE} is missing`);
      continue;
    }
    const jws = readFileSync(jwsPath, "utf8").trim();
    let payload: Uint8Array;
    try {
      const header = decodeProtectedHeader(jws);
      if (header.typ !== EVIDENCE_JWS_TYP) throw new Error(`typ is ${String(header.typ)}, not ${EVIDENCE_JWS_TYP}`);
      const jwk = keySet.keys.find((k) => k.kid === header.kid);
      if (!jwk) {
        problem("signature", `signed with key ${String(header.kid)}, which is not in the key set given (wrong key)`);
        continue;
      }
      const key = await importJWK(jwk, header.alg);
      payload = (await compactVerify(jws, key, { algorithms: [String(header.alg)] })).payload;
    } catch (e) {
      problem("signature", `${SIGNATURE_FILE} does not verify: ${(e as Error).message} (wrong key or tampered signature)`);
      continue;
    }
    // 2. manifest
    if (Buffer.compare(Buffer.from(payload), Buffer.from(text, "utf8")) !== 0) {
      problem("manifest", `${MANIFEST_FILE} differs from the signed manifest in ${SIGNATURE_FILE} (tampered manifest)`);
      continue;
    }
    if (!manifest) continue;
    // 3. files
    for (const f of manifest.files) {
      const path = join(d, f.name);
      if (f.name.includes("/") || f.name.includes("\\") || f.name.startsWith(".")) {
        problem("file", `${f.name}: not a plain file name`);
        continue;
      }
      if (!existsSync(path)) {
        problem("file", `${f.name} is missing`);
        continue;
      }
      const got = await fileSha256(path);
      if (got.sha256 !== f.sha256 || got.bytes !== f.bytes) problem("file", `${f.name}: SHA-256 ${got.sha256} (${got.bytes} bytes) does not match the manifest's ${f.sha256} (${f.bytes} bytes) (tampered file)`);
    }
    verified.push({ manifest, text, dir: d });
  }
  // 4. chain, per application, over the exports whose signature and manifest verified
  const byApp = new Map<string, typeof verified>();
  for (const v of verified) byApp.set(v.manifest.application_id, [...(byApp.get(v.manifest.application_id) ?? []), v]);
  for (const list of byApp.values()) {
    list.sort((a, b) => a.manifest.seq - b.manifest.seq);
    for (let i = 1; i < list.length; i++) {
      const prev = list[i - 1]!;
      const cur = list[i]!;
      const problem = (message: string) => problems.push({ kind: "chain", export: cur.dir, message: `chain: ${message} (broken chain)` });
      if (cur.manifest.seq !== prev.manifest.seq + 1) {
        problem(`export ${cur.manifest.export_id} has seq ${cur.manifest.seq} but the export before it in ${dir} has seq ${prev.manifest.seq}: export(s) missing`);
        continue;
      }
      const link = cur.manifest.previous_export;
      if (!link || link.export_id !== prev.manifest.export_id || link.manifest_sha256 !== sha256Hex(prev.text)) {
        problem(`export ${cur.manifest.export_id} names previous export ${link?.export_id ?? "none"} with manifest SHA-256 ${link?.manifest_sha256 ?? "none"}, but export ${prev.manifest.export_id}'s manifest hashes to ${sha256Hex(prev.text)}`);
      }
    }
    if (list[0] && list[0].manifest.seq > 1 && !list[0].manifest.previous_export) {
      problems.push({ kind: "chain", export: list[0].dir, message: `chain: export ${list[0].manifest.export_id} has seq ${list[0].manifest.seq} but names no previous export (broken chain)` });
    }
  }
  return { ok: problems.length === 0, exports: report, problems };
}
