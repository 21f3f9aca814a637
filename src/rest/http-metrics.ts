// Request count and latency per method, route and status, for GET /metrics. The route label is
// the Express route pattern that answered ("/svc/resource-servers/:id"), or the mount path of a
// sub-application without routes (GraphQL), else "unmatched": never the raw URL, so the label's
// values stay bounded whatever paths clients send. One timestamp and one observation per request.
import type { RequestHandler } from "express";
import type { Histogram } from "prom-client";

export const UNMATCHED_ROUTE = "unmatched";

export function httpMetrics(duration: Histogram<"method" | "route" | "status">, mounts: readonly string[]): RequestHandler {
  return (req, res, next) => {
    const start = process.hrtime.bigint();
    // "close" fires for every response, also one the client abandoned before it was finished.
    res.once("close", () => {
      let route = UNMATCHED_ROUTE;
      if (req.route) route = req.baseUrl + (req.route.path as string);
      else {
        // originalUrl: a sub-application rewrites req.url while it answers.
        const path = req.originalUrl.split("?", 1)[0]!;
        for (const m of mounts) if (path === m || path.startsWith(`${m}/`)) route = m;
      }
      duration.observe({ method: req.method, route, status: res.statusCode }, Number(process.hrtime.bigint() - start) / 1e9);
    });
    next();
  };
}
