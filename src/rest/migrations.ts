// Admin REST for database migrations (the spec's gateway module `/svc/migration/`). Owner only.
import { Router } from "express";
import { MASTER_DATABASE, type MigrationService } from "../modules/operations";
import { notFound } from "../shared/errors";
import { actorOf } from "./admin-auth";

export function migrationsRouter(migrations: MigrationService): Router {
  const r = Router();
  r.get("/svc/migration/migrations", async (_req, res) => {
    res.json(await migrations.list(actorOf(res)));
  });
  r.post("/svc/migration/migrations/:database/run", async (req, res) => {
    // The installation has one database, which the spec's path calls "master".
    if (req.params.database !== MASTER_DATABASE) throw notFound("database");
    res.json(await migrations.run(actorOf(res)));
  });
  return r;
}
