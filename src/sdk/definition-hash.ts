// The pin of a tool's definition: SHA-256 over the canonical JSON of what a client reads about the
// tool before calling it (name, description, input schema). Toolgate computes it from what a scan
// or a manifest reported and puts it in the sdk-policy; the SDK computes it from the live server
// and refuses a tool whose hash differs (a changed description or schema can change what an agent
// does with the tool: "tool poisoning" / "rug pull"). Both sides use this one function.
//
// Canonical JSON: object keys sorted by code unit (as RFC 8785 §3.2.3), no whitespace, arrays in
// order, `undefined` members dropped; absent description/schema hash as null.
import { createHash } from "node:crypto";

export interface ToolDefinition {
  name: string;
  description?: string | null;
  inputSchema?: unknown;
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  const entries = Object.keys(value)
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
  return `{${entries.join(",")}}`;
}

/** `sha256:<base64url>` of the canonical {name, description, input_schema}. */
export function toolDefinitionHash(tool: ToolDefinition): string {
  const canonical = canonicalJson({ name: tool.name, description: tool.description ?? null, input_schema: tool.inputSchema ?? null });
  return `sha256:${createHash("sha256").update(canonical).digest("base64url")}`;
}
