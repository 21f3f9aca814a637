// Wire shape of an evidence export (snake_case; the manifest as it was signed, parsed).
import type { EvidenceManifest } from "./manifest";
import { MANIFEST_FILE, SIGNATURE_FILE } from "./manifest";

export interface EvidenceExportView {
  export_id: string;
  application_id: string;
  seq: number;
  created_at: string;
  created_by: string;
  manifest_sha256: string;
  manifest: EvidenceManifest;
  /** Every file to download, manifest and signature included, with its path under the export. */
  files: { name: string; path: string }[];
}

export function toExportView(row: { id: string; resourceServerId: string; seq: number; createdAt: Date; createdBy: string; manifestSha256: string; manifest: string }): EvidenceExportView {
  const manifest = JSON.parse(row.manifest) as EvidenceManifest;
  const base = `/svc/v1/applications/${row.resourceServerId}/evidence-exports/${row.id}/files/`;
  const names = [MANIFEST_FILE, SIGNATURE_FILE, ...manifest.files.map((f) => f.name)];
  return {
    export_id: row.id,
    application_id: row.resourceServerId,
    seq: row.seq,
    created_at: row.createdAt.toISOString(),
    created_by: row.createdBy,
    manifest_sha256: row.manifestSha256,
    manifest,
    files: names.map((name) => ({ name, path: base + name })),
  };
}
