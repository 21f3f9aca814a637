// The JSON-lines stream of the audit trail for log shippers (TOOLGATE_AUDIT_LOG_STREAM = stdout or
// a file path): one line per event, in each workspace's chain order, written by whichever instance
// claims the batch (event-consumer.ts). At least once: a crash between writing and committing the
// cursor writes those lines again after restart; shippers deduplicate on `id` (and may check the
// chain with `prev_hash` / `hash`, or hand the last seq and hash to `toolgate audit verify --expect-head`).
import { appendFile } from "node:fs/promises";
import type { AuditEventView } from "../audit";
import type { ConsumerHandler } from "./event-consumer";

export const LOG_STREAM_CONSUMER = "log_stream";

export function logLine(e: AuditEventView): string {
  return `${JSON.stringify({ type: "audit_event", ...e })}\n`;
}

export function logStreamHandler(destination: string): ConsumerHandler {
  const write =
    destination === "stdout"
      ? (text: string) => new Promise<void>((resolve, reject) => process.stdout.write(text, (e) => (e ? reject(e) : resolve())))
      : (text: string) => appendFile(destination, text, { mode: 0o600 });
  return {
    async handle(_tx, _chain, events) {
      await write(events.map(logLine).join(""));
    },
  };
}
