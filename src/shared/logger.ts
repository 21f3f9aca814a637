// Structured JSON logs (pino). Secrets and tokens never reach a log line: authorization headers,
// cookies, passwords, secrets and tokens are redacted by path, and the request logger records
// the path without its query string.
import { pino, type Logger } from "pino";

export type { Logger };

export const REDACT_PATHS = [
  "req.headers.authorization",
  "req.headers.cookie",
  "*.password",
  "*.client_secret",
  "*.introspection_secret",
  "*.access_token",
  "*.refresh_token",
  "*.token",
  "*.code",
  "*.code_verifier",
  "*.mcp_token",
  "password",
  "client_secret",
  "token",
];

/**
 * Logs to `destination`, or to standard output. Standard output is written asynchronously
 * (sonic-boom, sync: false): lines queue while a write is in flight and go out together, instead of
 * one blocking write(2) per line on the request path; pino flushes what is queued when the process
 * exits. Lines are not held back waiting for more (no minLength): each goes out as soon as the
 * previous write completes.
 */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    { level, base: { service: "toolgate" }, redact: { paths: REDACT_PATHS, censor: "[redacted]" }, timestamp: pino.stdTimeFunctions.isoTime },
    (destination ?? pino.destination({ dest: 1, sync: false })) as never,
  );
}
