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

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    { level, base: { service: "toolgate" }, redact: { paths: REDACT_PATHS, censor: "[redacted]" }, timestamp: pino.stdTimeFunctions.isoTime },
    destination as never,
  );
}
