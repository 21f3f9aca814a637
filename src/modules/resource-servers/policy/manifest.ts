// The tool manifest a resource-server runtime pushes: `{tools:[{name, title?, description?,
// input_schema?}]}`. Checked in full so the status can list every problem, not just the first.
// Unknown fields are tolerated and dropped (runtimes of newer SDK versions may send more), but
// every field we keep is validated.
import { z } from "zod";
import { inputSchemaSchema, toolNameSchema } from "../catalog/schemas";

export const MAX_MANIFEST_TOOLS = 2000;
const MAX_REPORTED_ERRORS = 50;

const manifestToolSchema = z.object({
  name: toolNameSchema,
  title: z.string().max(200).nullish(),
  description: z.string().max(10_000).nullish(),
  input_schema: inputSchemaSchema.nullish(),
  annotations: z.record(z.string(), z.unknown()).nullish(),
});

const manifestSchema = z.object({
  tools: z.array(manifestToolSchema).max(MAX_MANIFEST_TOOLS),
  sdk_version: z.string().max(100).optional(),
});

export type ManifestTool = z.infer<typeof manifestToolSchema>;

export type ManifestCheck = { valid: true; tools: ManifestTool[]; errors: [] } | { valid: false; tools: []; errors: string[]; toolCount: number };

export function checkManifest(body: unknown): ManifestCheck {
  const toolCount = Array.isArray((body as { tools?: unknown })?.tools) ? (body as { tools: unknown[] }).tools.length : 0;
  const parsed = manifestSchema.safeParse(body ?? {});
  if (!parsed.success) {
    const errors = parsed.error.issues.slice(0, MAX_REPORTED_ERRORS).map((i) => `${i.path.length ? i.path.join(".") : "body"}: ${i.message}`);
    return { valid: false, tools: [], errors, toolCount };
  }
  const seen = new Set<string>();
  const errors: string[] = [];
  parsed.data.tools.forEach((t, i) => {
    if (seen.has(t.name)) errors.push(`tools.${i}.name: duplicate tool name ${JSON.stringify(t.name)}`);
    seen.add(t.name);
  });
  if (errors.length > 0) return { valid: false, tools: [], errors: errors.slice(0, MAX_REPORTED_ERRORS), toolCount };
  return { valid: true, tools: parsed.data.tools, errors: [] };
}

/**
 * Differences between the last valid manifest and the server's tools, computed on read because
 * mappings keep changing: tools the runtime reports that nobody may call (no scope, not public),
 * and scanned tools the runtime does not report.
 */
export function manifestWarnings(
  manifestNames: string[],
  tools: { name: string; source: string; stale: boolean; isPublic: boolean; scopeKeys: string[] }[],
): { unmapped_tools: string[]; missing_from_manifest: string[]; warnings: string[] } {
  const inManifest = new Set(manifestNames);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const unmapped = manifestNames.filter((n) => {
    const t = byName.get(n);
    return !t || (!t.isPublic && t.scopeKeys.length === 0);
  });
  const missing = tools.filter((t) => t.source === "scan" && !t.stale && !inManifest.has(t.name)).map((t) => t.name);
  const warnings = [
    ...unmapped.map((n) => `tool ${JSON.stringify(n)} has no scope and is not public: every call to it is denied once the server is ready`),
    ...missing.map((n) => `tool ${JSON.stringify(n)} was discovered by scan but the runtime does not report it`),
  ];
  return { unmapped_tools: unmapped.sort(), missing_from_manifest: missing.sort(), warnings };
}
