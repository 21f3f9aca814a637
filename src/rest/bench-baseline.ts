// The benchmark's reference route (bench/run.ts): a constant JSON object through the same Express
// app and middleware as every other route, so each endpoint's req/s can be read as a ratio of it.
// Mounted only when TOOLGATE_BENCH_ROUTES=1 (config.benchRoutes); never in a normal deployment.
import { Router } from "express";

export const BENCH_BASELINE_PATH = "/bench/baseline";

export function benchBaselineRouter(): Router {
  const r = Router();
  r.get(BENCH_BASELINE_PATH, (_req, res) => {
    res.json({ ok: true, service: "toolgate" });
  });
  return r;
}
