// Request count and latency per method, route and status, for GET /metrics. The route label is
// the Express route pattern that answered ("/svc/resource-servers/:id"), or the mount path of a
// sub-application without routes (GraphQL), else "unmatched": never the raw URL, so the label's
// values stay bounded whatever paths clients send.
// Per request: one clock read at the start, one shared listener (no closure), and at the end a
// lookup of the labelled child in nested maps (no label string built, no hashing) and one observation.
import type { Request, RequestHandler, Response } from "express";
import type { Histogram } from "prom-client";

export const UNMATCHED_ROUTE = "unmatched";

const STARTED = Symbol("metrics start");
type Timed = Response & { [STARTED]?: number };
type Child = { observe(value: number): void };

export function httpMetrics(duration: Histogram<"method" | "route" | "status">, mounts: readonly string[]): RequestHandler {
  // route -> status -> method -> child; bounded: routes and mounts are fixed, statuses and methods few.
  const children = new Map<string, Map<number, Map<string, Child>>>();
  const childFor = (method: string, route: string, status: number): Child => {
    let byStatus = children.get(route);
    if (!byStatus) children.set(route, (byStatus = new Map()));
    let byMethod = byStatus.get(status);
    if (!byMethod) byStatus.set(status, (byMethod = new Map()));
    let child = byMethod.get(method);
    if (!child) byMethod.set(method, (child = duration.labels({ method, route, status: String(status) })));
    return child;
  };
  const routeOf = (req: Request): string => {
    if (req.route) return req.baseUrl + (req.route.path as string);
    // originalUrl: a sub-application rewrites req.url while it answers.
    const path = req.originalUrl.split("?", 1)[0]!;
    for (const m of mounts) if (path === m || path.startsWith(`${m}/`)) return m;
    return UNMATCHED_ROUTE;
  };
  // "close" fires once for every response, also one the client abandoned before it was finished.
  function onClose(this: Timed): void {
    const req = this.req as Request;
    childFor(req.method, routeOf(req), this.statusCode).observe((performance.now() - this[STARTED]!) / 1000);
  }
  return (_req, res, next) => {
    (res as Timed)[STARTED] = performance.now();
    res.on("close", onClose);
    next();
  };
}
