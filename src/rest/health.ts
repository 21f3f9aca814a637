import { Router } from "express";
import type { Db } from "../storage";

/** /healthz: the process is up. /readyz: the database answers (503 otherwise). */
export function healthRouter(db: Db): Router {
  const r = Router();
  r.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  r.get("/readyz", async (_req, res) => {
    try {
      await db.$queryRawUnsafe("SELECT 1");
      res.json({ status: "ready" });
    } catch {
      res.status(503).json({ status: "unavailable", error: "database unreachable" });
    }
  });
  return r;
}
