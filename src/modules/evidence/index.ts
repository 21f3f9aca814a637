// Signed evidence exports of an application's access (access review snapshots) and their offline
// verification (`toolgate evidence verify`).
export { EvidenceService, EVIDENCE_EXPORT_CREATED, type EvidenceDeps, type EvidenceFile } from "./evidence-service";
export { EVIDENCE_LIST, listEvidenceQuery } from "./schemas";
export type { EvidenceExportView } from "./views";
export { COLUMNS, accessRows, applicationFacts, type AccessRow } from "./snapshot";
export { EVIDENCE_FORMAT, EVIDENCE_JWS_TYP, MANIFEST_FILE, SIGNATURE_FILE, type EvidenceManifest } from "./manifest";
export { verifyEvidence, type EvidenceReport, type EvidenceProblem, type KeySet } from "./verify";
