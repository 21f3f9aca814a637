import type { Prisma } from "../../generated/sqlite/client";
import { Keyset, pageQuerySchema } from "../../shared/pagination";

/** An application's exports, newest first. */
export const EVIDENCE_LIST = new Keyset<{ seq: number }, Prisma.EvidenceExportWhereInput, Prisma.EvidenceExportOrderByWithRelationInput[]>(
  "evidence-exports",
  [{ field: "seq", dir: "desc", kind: "int" }],
  (e) => [e.seq],
);
export const listEvidenceQuery = pageQuerySchema(EVIDENCE_LIST);
