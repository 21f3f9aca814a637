import { Router } from "express";
import type { ChangeBus, Db } from "../storage";

/**
 * /healthz: the process is up. /readyz: the database answers (503 otherwise). The body also says
 * whether this instance hears other instances' cache invalidations (PostgreSQL LISTEN): while it
 * does not, it still answers safely (entries older than TOOLGATE_CACHE_STALE_MS are reloaded before
 * use), so that alone does not make it unready.
 */
export function healthRouter(db: Db, changes: ChangeBus): Router {
  const r = Router();
  r.get("/healthz", (_req, res) => {
    res.json({ status: "ok" });
  });
  r.get("/readyz", async (_req, res) => {
    const cacheInvalidation = changes.healthy.connected ? "connected" : "disconnected";
    try {
      await db.$queryRawUnsafe("SELECT 1");
      res.json({ status: "ready", database: "ok", cache_invalidation: cacheInvalidation });
    } catch {
      res.status(503).json({ status: "unavailable", error: "database unreachable", database: "unreachable", cache_invalidation: cacheInvalidation });
    }
  });
  return r;
}
