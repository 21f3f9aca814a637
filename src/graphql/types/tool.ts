// Tool and Scope of a resource server, and ResourceServer.tools / .scopes. Nested lists resolve
// through plugin-prisma selections (folded into the parent's query), so servers -> tools -> scopes
// costs a fixed number of SQL statements however many rows there are.
import { SCOPE_LIST, TOOL_LIST } from "../../modules/resource-servers";
import { builder } from "../builder";
import { enumValue } from "./enums";
import { CURSOR_DESCRIPTION, pageArgs, pageOf } from "./pagination";

export const TOOL_SOURCES = ["scan", "manifest", "manual"] as const;
export const ToolSourceEnum = builder.enumType("ToolSource", { values: TOOL_SOURCES, description: "How Toolgate learned of a tool." });

const ToolDefinitionRef = builder.objectRef<{ description: string | null; inputSchemaJson: string | null }>("ToolDefinition").implement({
  description: "A tool's definition as an agent reads it (what its pin hashes, with the name).",
  fields: (t) => ({
    description: t.exposeString("description", { nullable: true }),
    inputSchemaJson: t.exposeString("inputSchemaJson", { nullable: true, description: "JSON text." }),
  }),
});

function toolDefinitionOf(stored: unknown): { description: string | null; inputSchemaJson: string | null } | null {
  if (typeof stored !== "object" || stored === null) return null;
  const d = stored as { description?: string | null; input_schema?: unknown };
  return { description: d.description ?? null, inputSchemaJson: d.input_schema === null || d.input_schema === undefined ? null : JSON.stringify(d.input_schema) };
}

export const ToolRef = builder.prismaObject("Tool", {
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID("id", { description: "tool_id in the REST API." }),
    name: t.exposeString("name", { description: "tool_name: the key of the scope matrix, exactly as the server publishes it." }),
    title: t.exposeString("title", { nullable: true }),
    description: t.exposeString("description", { nullable: true }),
    inputSchemaJson: t.string({
      nullable: true,
      description: "The tool's JSON Schema for its input, as JSON text.",
      select: { inputSchema: true },
      resolve: (tool) => (tool.inputSchema === null || tool.inputSchema === undefined ? null : JSON.stringify(tool.inputSchema)),
    }),
    source: t.field({ type: ToolSourceEnum, select: { source: true }, resolve: (tool) => enumValue(TOOL_SOURCES, tool.source, "tool source") }),
    isPublic: t.exposeBoolean("isPublic", { description: "Public tools need no scope (matrix entry [])." }),
    stale: t.exposeBoolean("stale", { description: "Seen by an earlier scan but not by the newest one (kept, with its mappings)." }),
    lastSeenGeneration: t.exposeInt("lastSeenGeneration", { description: "Scan generation in which the tool was last listed (0: never by a scan)." }),
    definitionHash: t.exposeString("approvedDefinitionHash", { nullable: true, description: "definition_hash: the pinned (approved) definition; the SDK denies the tool while its live definition differs." }),
    liveDefinitionHash: t.exposeString("liveDefinitionHash", { nullable: true, description: "live_definition_hash: the definition as last reported by a scan or manifest." }),
    approvedDefinition: t.field({
      type: ToolDefinitionRef,
      nullable: true,
      description: "The pinned definition behind definitionHash (null when pinned before it was kept); description and inputSchemaJson are the live one.",
      select: { approvedDefinition: true },
      resolve: (tool) => toolDefinitionOf(tool.approvedDefinition),
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    cursor: t.string({ description: `${CURSOR_DESCRIPTION} (ResourceServer.tools)`, select: { name: true }, resolve: (tool) => TOOL_LIST.cursorAfter(tool) }),
  }),
});

export const ScopeRef = builder.prismaObject("Scope", {
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID("id", { description: "Internal id; the scope's public id is `scopeId`." }),
    scopeId: t.exposeString("key", { description: 'The scope string tokens carry, e.g. "files:read" (the id in the REST API).' }),
    name: t.exposeString("name"),
    description: t.exposeString("description", { nullable: true }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    cursor: t.string({ description: `${CURSOR_DESCRIPTION} (ResourceServer.scopes)`, select: { key: true }, resolve: (scope) => SCOPE_LIST.cursorAfter(scope) }),
  }),
});

// Tool <-> Scope through the ToolScope join rows, selected inside the parent's query (Pothos
// "indirect relation"): no query per tool or per scope.
const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

builder.prismaObjectField(ToolRef, "scopes", (t) =>
  t.field({
    type: [ScopeRef],
    description: "Scopes the tool is mapped to, by scope id.",
    select: (_args, _ctx, nestedSelection) => ({
      scopes: { select: { scope: nestedSelection({ select: { id: true, key: true } }) } },
    }),
    resolve: (tool) => tool.scopes.map((ts) => ts.scope).sort(byKey),
  }),
);

builder.prismaObjectField(ScopeRef, "tools", (t) =>
  t.field({
    type: [ToolRef],
    description: "Tools mapped to this scope, by name.",
    select: (_args, _ctx, nestedSelection) => ({
      tools: { select: { tool: nestedSelection({ select: { id: true, name: true } }) } },
    }),
    resolve: (scope) => scope.tools.map((ts) => ts.tool).sort(byName),
  }),
);

builder.prismaObjectFields("ResourceServer", (t) => ({
  tools: t.relation("tools", {
    description: "The server's tools by name, stale ones included unless asked otherwise (one page: first, after).",
    args: { includeStale: t.arg.boolean({ required: false, defaultValue: true }), ...pageArgs },
    query: (args) => {
      const page = pageOf(TOOL_LIST, args);
      return {
        where: TOOL_LIST.where(args.includeStale === false ? { stale: false } : {}, page.cursor),
        orderBy: TOOL_LIST.orderBy,
        take: page.limit,
      };
    },
  }),
  scopes: t.relation("scopes", {
    description: "The server's scopes by scope id (scopesSupported mirrors them; one page: first, after).",
    args: { ...pageArgs },
    query: (args) => {
      const page = pageOf(SCOPE_LIST, args);
      return { where: SCOPE_LIST.where({}, page.cursor), orderBy: SCOPE_LIST.orderBy, take: page.limit };
    },
  }),
}));
