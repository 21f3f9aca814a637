// GET /svc/settings/metrics (owners and admins): whether GET /metrics is served, i.e. whether
// TOOLGATE_METRICS_TOKEN is set (docs/operations.md, docs/decisions/0023-metrics-endpoint.md).
// Only the fact: never the token, its length or a digest of it. The cockpit's Settings shows it.
import { Router } from "express";
import { assertCanWrite } from "../shared/actor";
import { actorOf } from "./admin-auth";
import { METRICS_PATH } from "./metrics";

export interface MetricsStatus {
  /** GET /metrics answers (with the bearer token); false: it is a 404 like any unknown path. */
  enabled: boolean;
  path: string;
}

export function metricsStatusRouter(token: string | undefined): Router {
  const r = Router();
  const status: MetricsStatus = { enabled: token !== undefined && token !== "", path: METRICS_PATH };
  r.get("/svc/settings/metrics", (_req, res) => {
    assertCanWrite(actorOf(res));
    res.json(status);
  });
  return r;
}
