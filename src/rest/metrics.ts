// GET /metrics: the Prometheus text exposition, for a scraper holding TOOLGATE_METRICS_TOKEN
// (Authorization: Bearer, compared in constant time). Without the variable the route does not
// exist (404, like any unknown path): figures such as request rates are not for the public.
// docs/decisions/0023-metrics-endpoint.md.
import { Router } from "express";
import { bearerToken } from "../modules/tenancy";
import { safeEqual, sha256Base64url } from "../shared/crypto";
import type { Metrics } from "../metrics/metrics";

export const METRICS_PATH = "/metrics";

export function metricsRouter(metrics: Metrics, token: string | undefined): Router {
  const r = Router();
  if (!token) return r;
  // Compared as digests: equal lengths, so not even the token's length leaks through timing.
  const expected = sha256Base64url(token);
  r.get(METRICS_PATH, async (req, res) => {
    const presented = bearerToken(req.headers.authorization);
    if (!presented || !safeEqual(sha256Base64url(presented), expected)) {
      // RFC 6750 §3: the challenge names the scheme; no hint whether a token was close.
      res.status(401).set("WWW-Authenticate", 'Bearer realm="toolgate-metrics"').set("Cache-Control", "no-store").json({ error: "missing or invalid metrics token" });
      return;
    }
    const { contentType, body } = await metrics.expose();
    res.status(200).set("Content-Type", contentType).set("Cache-Control", "no-store").send(body);
  });
  return r;
}
