// Input of the tool and scope endpoints (zod, strict: unknown fields are a 400 naming them).
import { z } from "zod";
import type { Prisma } from "../../../generated/sqlite/client";
import { Keyset, pageQuerySchema } from "../../../shared/pagination";
import { uniqueList } from "../../../shared/zod";
import { nameSchema, scopeTokenSchema } from "../schemas";

/**
 * A tool name as MCP servers publish it: 1-256 characters, no control characters, no surrounding
 * blanks. Case-sensitive and kept exactly, since it is the key of the scope matrix.
 */
export const toolNameSchema = z
  .string()
  .min(1, "must not be empty")
  .max(256)
  .refine((v) => !/[\x00-\x1f\x7f]/.test(v), "must not contain control characters")
  .refine((v) => v.trim() === v, "must not start or end with blanks");

/** An MCP input schema is a JSON Schema object whose type is "object". */
export const inputSchemaSchema = z
  .record(z.string(), z.unknown())
  .refine((s) => s.type === undefined || s.type === "object", 'must be a JSON Schema with type "object"');

export const createToolSchema = z
  .object({
    name: toolNameSchema,
    title: z.string().trim().min(1).max(200).optional(),
    description: z.string().max(10_000).optional(),
    input_schema: inputSchemaSchema.optional(),
  })
  .strict();
export type CreateToolInput = z.infer<typeof createToolSchema>;

/** Typed confirmation: the administrator repeats the tool's name (docs/decisions/0015-public-tool-confirmation.md). */
/**
 * POST .../tools/:tool_id/public: the spec sends no body; a `confirm` that is sent must repeat the
 * tool's name (docs/decisions/0015-public-tool-confirmation.md, amended).
 */
export const markPublicSchema = z
  .object({
    confirm: z.string({ error: "must repeat the tool name" }).min(1).max(256).optional(),
    is_public: z.boolean().default(true),
  })
  .strict();
export type MarkPublicInput = z.infer<typeof markPublicSchema>;

export const createScopeSchema = z
  .object({
    id: scopeTokenSchema,
    name: nameSchema,
    description: z.string().max(1000).optional(),
  })
  .strict();
export type CreateScopeInput = z.infer<typeof createScopeSchema>;

const uniqueScopeIds = uniqueList(scopeTokenSchema, 100);

export const toolScopeMapSchema = z
  .object({
    mappings: z
      .array(
        z
          .object({ tool_name: toolNameSchema.optional(), tool_id: z.string().uuid("must be a UUID").optional(), scope_ids: uniqueScopeIds })
          .strict()
          .refine((m) => (m.tool_name === undefined) !== (m.tool_id === undefined), "give exactly one of tool_name or tool_id"),
      )
      .min(1, "must list at least one tool")
      .max(2000),
  })
  .strict();
export type ToolScopeMapInput = z.infer<typeof toolScopeMapSchema>;

/** A server's tools: by name (unique per server), the row id breaking ties all the same. */
export const TOOL_LIST = new Keyset<{ name: string; id: string }, Prisma.ToolWhereInput, Prisma.ToolOrderByWithRelationInput[]>(
  "tools",
  [
    { field: "name", dir: "asc", kind: "string" },
    { field: "id", dir: "asc", kind: "string" },
  ],
  (t) => [t.name, t.id],
);
export const listToolsQuery = pageQuerySchema(TOOL_LIST);

/** A server's scopes: by scope id (key, unique per server), the row id breaking ties all the same. */
export const SCOPE_LIST = new Keyset<{ key: string; id: string }, Prisma.ScopeWhereInput, Prisma.ScopeOrderByWithRelationInput[]>(
  "scopes",
  [
    { field: "key", dir: "asc", kind: "string" },
    { field: "id", dir: "asc", kind: "string" },
  ],
  (s) => [s.key, s.id],
);
export const listScopesQuery = pageQuerySchema(SCOPE_LIST);
