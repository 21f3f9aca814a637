// Writes the JSON answers of the OAuth hot paths straight to node's response. Express's res.json()
// (content-type negotiation, charset rewriting, freshness and ETag checks) measured ~35 µs of CPU
// per request here — more than the whole introspection logic — and these answers need none of it:
// a fixed content type, no conditional requests (POST), no ETag. Routing, middleware and error
// handling stay Express's; only the final write is direct. Error answers still go through
// rest/errors.ts (not a hot path).
import type { Response } from "express";

/** RFC 6749 §5.1 (token responses) and, for the same reason, introspection and revocation answers. */
export const NO_STORE: Readonly<Record<string, string>> = Object.freeze({ "Cache-Control": "no-store", Pragma: "no-cache" });

export function sendJson(res: Response, body: unknown, headers: Readonly<Record<string, string>> = NO_STORE, status = 200): void {
  const json = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(json));
  for (const name in headers) res.setHeader(name, headers[name]!);
  res.end(json);
}

/** An empty 200 (RFC 7009 §2.2: the revocation answer has no meaningful body). */
export function sendEmpty(res: Response, headers: Readonly<Record<string, string>> = NO_STORE): void {
  res.statusCode = 200;
  res.setHeader("Content-Length", 0);
  for (const name in headers) res.setHeader(name, headers[name]!);
  res.end();
}
