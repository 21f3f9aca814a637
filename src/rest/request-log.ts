// One structured log line per request, with a request id (echoed as X-Request-Id). The path is
// logged without its query string and no header or body is logged, so no secret or token can leak.
import type { RequestHandler } from "express";
import { randomUUID } from "node:crypto";
import type { Logger } from "../shared/logger";

const REQUEST_ID_RE = /^[A-Za-z0-9._-]{1,64}$/;

export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers["x-request-id"];
    const requestId = typeof incoming === "string" && REQUEST_ID_RE.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = requestId;
    res.setHeader("X-Request-Id", requestId);
    if (!logger.isLevelEnabled("info")) return next();
    const start = process.hrtime.bigint();
    res.on("finish", () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      logger.info({ requestId, method: req.method, path: req.originalUrl.split("?")[0], status: res.statusCode, ms: Math.round(ms * 10) / 10 }, "request");
    });
    next();
  };
}
