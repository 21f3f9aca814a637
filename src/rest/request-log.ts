// One structured log line per request, with a request id (echoed as X-Request-Id). The path is
// logged without its query string and no header or body is logged, so no secret or token can leak.
//
// Cost (docs/benchmarks.md, issue 13): this line is written for every request, hot paths included.
// Its fields are fixed and secret-free by construction, so it is written through a child logger
// without the redaction pass: pino's wildcard redaction (shared/logger.ts REDACT_PATHS) measured
// ~16 µs of the ~23 µs a request line cost, for a line that has nothing to redact. Every other log
// line keeps the redaction. The finish listener is one shared function (no closure per request).
import type { RequestHandler, Response } from "express";
import { randomUUID } from "node:crypto";
import type { Logger } from "../shared/logger";

const REQUEST_ID_RE = /^[A-Za-z0-9._-]{1,64}$/;

/** The request line's fields; nothing else may be added here (see the note on redaction above). */
interface RequestLine {
  requestId: string;
  method: string;
  path: string;
  status: number;
  ms: number;
}

const started = Symbol("requestLogStart");
const lineLogger = Symbol("requestLogLogger");
type LoggedResponse = Response & { [started]?: bigint; [lineLogger]?: Logger };

function pathOf(url: string): string {
  const q = url.indexOf("?");
  return q < 0 ? url : url.slice(0, q);
}

function logFinished(this: LoggedResponse): void {
  const ms = Number(process.hrtime.bigint() - this[started]!) / 1e6;
  const req = this.req;
  const line: RequestLine = { requestId: this.locals.requestId as string, method: req.method, path: pathOf(req.originalUrl), status: this.statusCode, ms: Math.round(ms * 10) / 10 };
  this[lineLogger]!.info(line, "request");
}

export function requestLog(logger: Logger): RequestHandler {
  // Same level, bindings and destination; no redaction (the line's fields are fixed, see above).
  const lines = logger.child({}, { redact: [] });
  return (req, res, next) => {
    const incoming = req.headers["x-request-id"];
    const requestId = typeof incoming === "string" && REQUEST_ID_RE.test(incoming) ? incoming : randomUUID();
    res.locals.requestId = requestId;
    res.setHeader("X-Request-Id", requestId);
    if (!logger.isLevelEnabled("info")) return next();
    const r = res as LoggedResponse;
    r[started] = process.hrtime.bigint();
    r[lineLogger] = lines;
    res.on("finish", logFinished);
    next();
  };
}
