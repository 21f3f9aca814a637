// Evidence exports (POST/GET /svc/v1/applications/:id/evidence-exports): a deterministic, signed
// access-review snapshot of one application, stored and listable, chained per application.
//
// Creating one streams the rows page by page (snapshot.ts) into chunked files (files.ts) written
// outside any transaction (an export of 100,000 rows must not hold the database's one SQLite
// connection), then ONE transaction takes the application's row lock, numbers the export after the
// previous one, signs its manifest with the service's signing key and records the audit event. An
// export whose final step fails leaves no export row and its chunks are deleted.
// Who: owners, admins and readonly_auditors (docs/decisions/0034-evidence-exports.md).
import type { Db } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { type Actor, assertCanRead } from "../../shared/actor";
import { notFound } from "../../shared/errors";
import type { Page, PageRequest } from "../../shared/pagination";
import { AUDIT_ACTIONS, recordAuditEvent } from "../audit";
import type { KeyStore } from "../tokens";
import { SIGNING_ALG } from "../tokens";
import { COLUMNS, accessRows, applicationFacts } from "./snapshot";
import { DATA_FILES, DataFilesWriter, type DataFileName } from "./files";
import { EVIDENCE_FORMAT, EVIDENCE_JWS_TYP, MANIFEST_FILE, SIGNATURE_FILE, manifestText, sha256Hex, signManifest, type EvidenceManifest } from "./manifest";
import { EVIDENCE_LIST } from "./schemas";
import { toExportView, type EvidenceExportView } from "./views";

export const EVIDENCE_EXPORT_CREATED = AUDIT_ACTIONS.evidenceExported;

export interface EvidenceDeps {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  keys: KeyStore;
  publicUrl: string;
  /** The application as the actor may see it (404 otherwise): resource-servers findLive. */
  findApplication(actor: Actor, id: string): Promise<{ id: string; tenantId: string; name: string; state: string; scanGeneration: number }>;
  /** The sdk-policy ETag runtimes enforce now (null when none is compiled). */
  policyEtag(rsId: string): Promise<string | null>;
  /** Serialises writers of one application (PostgreSQL row lock; SQLite has one writer). */
  lockApplication(tx: unknown, tenantId: string, rsId: string): Promise<void>;
}

export type EvidenceFile = { kind: "text"; mediaType: string; body: string } | { kind: "chunks"; mediaType: string; chunks: AsyncGenerator<string> };

export class EvidenceService {
  constructor(private readonly d: EvidenceDeps) {}

  async create(actor: Actor, applicationId: string): Promise<EvidenceExportView> {
    assertCanRead(actor);
    const { db, clock, ids } = this.d;
    const app = await this.d.findApplication(actor, applicationId);
    const asOf = clock.now();
    const exportId = `evx_${ids.uuid()}`;
    try {
      const facts = await applicationFacts(db, app.tenantId, app.id);
      const writer = new DataFilesWriter(app.id, async (file, seq, content) => {
        await db.evidenceChunk.create({ data: { exportId, file, seq, content } });
      });
      await writer.start();
      for await (const page of accessRows(db, app.tenantId, app.id, asOf.getTime(), facts)) await writer.add(page);
      const files = await writer.finish();
      const policyEtag = await this.d.policyEtag(app.id);
      const signing = this.d.keys.signingKey();
      const row = await db.$transaction(async (tx) => {
        await this.d.lockApplication(tx, app.tenantId, app.id);
        const previous = await tx.evidenceExport.findFirst({ where: { resourceServerId: app.id }, orderBy: { seq: "desc" }, select: { id: true, seq: true, manifestSha256: true } });
        const seq = (previous?.seq ?? 0) + 1;
        const manifest: EvidenceManifest = {
          format: EVIDENCE_FORMAT,
          export_id: exportId,
          seq,
          workspace_id: app.tenantId,
          application_id: app.id,
          application_name: app.name,
          application_state: app.state,
          as_of: asOf.toISOString(),
          generated_at: asOf.toISOString(),
          generated_by: { user_id: actor.userId, role: actor.role },
          policy_revision: { scan_generation: app.scanGeneration, policy_etag: policyEtag },
          columns: COLUMNS,
          row_order: ["user_id", "role_id", "scope_id", "tool_name", "binding_id"],
          public_tools: facts.publicTools,
          files,
          previous_export: previous ? { export_id: previous.id, seq: previous.seq, manifest_sha256: previous.manifestSha256 } : null,
          signature: { format: "JWS", alg: SIGNING_ALG, typ: EVIDENCE_JWS_TYP, kid: signing.kid, jwks_uri: this.d.publicUrl.replace(/\/+$/, "") + "/oauth/jwks" },
        };
        const text = manifestText(manifest);
        const jws = await signManifest(text, signing, SIGNING_ALG);
        const created = await tx.evidenceExport.create({
          data: { id: exportId, tenantId: app.tenantId, resourceServerId: app.id, seq, manifest: text, manifestSha256: sha256Hex(text), jws, createdBy: actor.userId, createdAt: asOf },
        });
        await recordAuditEvent(tx, {
          action: EVIDENCE_EXPORT_CREATED,
          target: { type: "evidence_export", id: exportId },
          workspaceId: app.tenantId,
          detail: { application_id: app.id, seq, rows: files[0]?.rows ?? 0, manifest_sha256: created.manifestSha256 },
        });
        return created;
      });
      return toExportView(row);
    } catch (e) {
      await db.evidenceChunk.deleteMany({ where: { exportId } }).catch(() => undefined);
      throw e;
    }
  }

  async list(actor: Actor, applicationId: string, page: PageRequest): Promise<Page<EvidenceExportView>> {
    assertCanRead(actor);
    const app = await this.d.findApplication(actor, applicationId);
    const rows = await this.d.db.evidenceExport.findMany({
      where: EVIDENCE_LIST.where({ tenantId: app.tenantId, resourceServerId: app.id }, page.cursor),
      orderBy: EVIDENCE_LIST.orderBy,
      take: page.limit + 1,
    });
    return EVIDENCE_LIST.page(rows, page.limit, toExportView);
  }

  async get(actor: Actor, applicationId: string, exportId: string): Promise<EvidenceExportView> {
    return toExportView(await this.row(actor, applicationId, exportId));
  }

  /** One file of an export: the manifest and its signature from the row, data files chunk by chunk. */
  async file(actor: Actor, applicationId: string, exportId: string, name: string): Promise<EvidenceFile> {
    const row = await this.row(actor, applicationId, exportId);
    if (name === MANIFEST_FILE) return { kind: "text", mediaType: "application/json", body: row.manifest };
    if (name === SIGNATURE_FILE) return { kind: "text", mediaType: "application/jose", body: row.jws + "\n" };
    const data = DATA_FILES.find((f) => f.name === name);
    if (!data) throw notFound("evidence file");
    return { kind: "chunks", mediaType: data.mediaType, chunks: this.chunks(row.id, data.name) };
  }

  private async *chunks(exportId: string, file: DataFileName): AsyncGenerator<string> {
    for (let seq = 0; ; seq++) {
      const chunk = await this.d.db.evidenceChunk.findUnique({ where: { exportId_file_seq: { exportId, file, seq } }, select: { content: true } });
      if (!chunk) return;
      yield chunk.content;
    }
  }

  private async row(actor: Actor, applicationId: string, exportId: string) {
    assertCanRead(actor);
    const app = await this.d.findApplication(actor, applicationId);
    const row = await this.d.db.evidenceExport.findFirst({ where: { id: exportId, tenantId: app.tenantId, resourceServerId: app.id } });
    if (!row) throw notFound("evidence export");
    return row;
  }
}
