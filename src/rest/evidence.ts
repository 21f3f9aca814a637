// /svc/v1/applications/:id/evidence-exports (spec "Aggregate access APIs"): create, list, get, and
// download each file (data files streamed chunk by chunk). modules/evidence; docs/evidence-and-authzen.md.
import { Router } from "express";
import { z } from "zod";
import { listEvidenceQuery, type EvidenceService } from "../modules/evidence";
import { actorOf } from "./admin-auth";
import { parseWith } from "./validation";

const appParams = z.object({ id: z.string().uuid("must be a UUID") });
const exportParams = appParams.extend({ export_id: z.string().regex(/^evx_[0-9a-f-]{36}$/, "not an evidence export id") });
const fileParams = exportParams.extend({ name: z.string().max(64) });
/** No options yet: the body may be absent or {}. */
const createBody = z.object({}).strict();

export function evidenceRouter(evidence: EvidenceService): Router {
  const r = Router();
  const base = "/svc/v1/applications/:id/evidence-exports";
  r.post(base, async (req, res) => {
    const { id } = parseWith(appParams, req.params, "path");
    parseWith(createBody, req.body ?? {});
    res.status(201).json(await evidence.create(actorOf(res), id));
  });
  r.get(base, async (req, res) => {
    const { id } = parseWith(appParams, req.params, "path");
    res.json(await evidence.list(actorOf(res), id, parseWith(listEvidenceQuery, req.query, "query")));
  });
  r.get(`${base}/:export_id`, async (req, res) => {
    const p = parseWith(exportParams, req.params, "path");
    res.json(await evidence.get(actorOf(res), p.id, p.export_id));
  });
  r.get(`${base}/:export_id/files/:name`, async (req, res) => {
    const p = parseWith(fileParams, req.params, "path");
    const file = await evidence.file(actorOf(res), p.id, p.export_id, p.name);
    res.set("Content-Type", `${file.mediaType}; charset=utf-8`);
    res.set("Content-Disposition", `attachment; filename="${p.name}"`);
    if (file.kind === "text") {
      res.send(file.body);
      return;
    }
    // One chunk in memory at a time; wait for the socket to drain before reading the next.
    for await (const chunk of file.chunks) {
      if (!res.write(chunk)) await new Promise<void>((resolve) => res.once("drain", resolve));
    }
    res.end();
  });
  return r;
}
