// Lifecycle mutations: rescan, scopes, tools, the tool-scope mapping, public tools, activation,
// the access policy and drift dismissal. Each one parses its input with the module's zod schema
// (errors name the GraphQL field) and calls the service method the REST route calls, so both APIs
// make the same state changes, drift events and errors; the answer is then read with the
// operation's selection.
import { z } from "zod";
import {
  accessPolicySchema,
  createScopeSchema,
  createToolSchema,
  markPublicSchema,
  scopeTokenSchema,
  toolScopeMapSchema,
} from "../../modules/resource-servers";
import { builder } from "../builder";
import { idSchema, parseArg, toWire } from "../validation";
import { FirstTimeGrantEnum } from "./lifecycle";

const ToolScopeMappingInput = builder.inputType("ToolScopeMappingInput", {
  description: "One tool (by toolName or toolId) and the complete list of its scopes; [] unmaps it.",
  fields: (t) => ({
    toolName: t.string({ required: false }),
    toolId: t.id({ required: false }),
    scopeIds: t.stringList({ required: true }),
  }),
});

const CreateScopeInput = builder.inputType("CreateScopeInput", {
  fields: (t) => ({
    scopeId: t.string({ required: true, description: 'The scope string, e.g. "files:read".' }),
    name: t.string({ required: true }),
    description: t.string({ required: false }),
  }),
});

const AddToolInput = builder.inputType("AddToolInput", {
  fields: (t) => ({
    name: t.string({ required: true }),
    title: t.string({ required: false }),
    description: t.string({ required: false }),
    inputSchemaJson: t.string({ required: false, description: "JSON Schema of the input, as JSON text." }),
  }),
});

const AccessPolicyInput = builder.inputType("AccessPolicyInput", {
  fields: (t) => ({
    enabled: t.boolean({ required: true }),
    defaultRoleId: t.id({ required: false, description: "Omitted keeps the current role; null clears it." }),
    firstTimeGrant: t.field({ type: FirstTimeGrantEnum, required: false }),
  }),
});

const jsonObject = z.string().transform((s, ctx) => {
  try {
    return JSON.parse(s) as unknown;
  } catch {
    ctx.addIssue({ code: "custom", message: "must be JSON text" });
    return z.NEVER;
  }
});

builder.mutationFields((t) => ({
  rescanResourceServer: t.prismaField({
    type: "ResourceServer",
    description: "POST .../rescan. Fails with UPSTREAM_FAILED (extensions.failure_reason) or CONFLICT while a scan runs.",
    args: { id: t.arg.id({ required: true }), mcpToken: t.arg.string({ required: false, description: "Forwarded once as a bearer token; never stored." }) },
    resolve: async (query, _root, args, ctx) => {
      const id = parseArg(idSchema, args.id, "id");
      const token = args.mcpToken === null || args.mcpToken === undefined ? undefined : parseArg(z.string().min(1).max(8192), args.mcpToken, "mcpToken");
      await ctx.services.lifecycle.scans.rescan(ctx.actor, id, { mcp_token: token });
      return ctx.reads.resourceServer.findFirstOrThrow({ ...query, where: { id } });
    },
  }),
  activateResourceServer: t.prismaField({
    type: "ResourceServer",
    description: "POST .../activate. CONFLICT with extensions.failed when checklist items are red.",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const id = parseArg(idSchema, args.id, "id");
      await ctx.services.lifecycle.setup.activate(ctx.actor, id);
      return ctx.reads.resourceServer.findFirstOrThrow({ ...query, where: { id } });
    },
  }),
  createScope: t.prismaField({
    type: "Scope",
    args: { resourceServerId: t.arg.id({ required: true }), input: t.arg({ type: CreateScopeInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const rsId = parseArg(idSchema, args.resourceServerId, "resourceServerId");
      const { scopeId, ...rest } = args.input;
      const input = parseArg(createScopeSchema, { id: scopeId, ...toWire(rest) }, "input");
      await ctx.services.lifecycle.catalog.createScope(ctx.actor, rsId, input);
      return ctx.reads.scope.findFirstOrThrow({ ...query, where: { resourceServerId: rsId, key: input.id } });
    },
  }),
  deleteScope: t.boolean({
    description: "DELETE .../scopes/:scope_id. After activation this records a scope_deleted drift event.",
    args: { resourceServerId: t.arg.id({ required: true }), scopeId: t.arg.string({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const rsId = parseArg(idSchema, args.resourceServerId, "resourceServerId");
      await ctx.services.lifecycle.catalog.deleteScope(ctx.actor, rsId, parseArg(scopeTokenSchema, args.scopeId, "scopeId"));
      return true;
    },
  }),
  addTool: t.prismaField({
    type: "Tool",
    args: { resourceServerId: t.arg.id({ required: true }), input: t.arg({ type: AddToolInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const rsId = parseArg(idSchema, args.resourceServerId, "resourceServerId");
      const { inputSchemaJson, ...rest } = args.input;
      const inputSchema = inputSchemaJson === null || inputSchemaJson === undefined ? undefined : parseArg(jsonObject, inputSchemaJson, "input.inputSchemaJson");
      const input = parseArg(createToolSchema, { ...toWire(rest), ...(inputSchema === undefined ? {} : { input_schema: inputSchema }) }, "input");
      const tool = await ctx.services.lifecycle.catalog.createTool(ctx.actor, rsId, input);
      return ctx.reads.tool.findFirstOrThrow({ ...query, where: { id: tool.tool_id } });
    },
  }),
  setToolPublic: t.prismaField({
    type: "Tool",
    description: "POST .../tools/:tool_id/public: opens the tool to every caller with a token for the server; `confirm`, when given, must repeat the tool's name.",
    args: {
      resourceServerId: t.arg.id({ required: true }),
      toolId: t.arg.id({ required: true }),
      confirm: t.arg.string({ required: false }),
      isPublic: t.arg.boolean({ required: false, defaultValue: true }),
    },
    resolve: async (query, _root, args, ctx) => {
      const rsId = parseArg(idSchema, args.resourceServerId, "resourceServerId");
      const toolId = parseArg(idSchema, args.toolId, "toolId");
      const input = parseArg(markPublicSchema, { confirm: args.confirm ?? undefined, is_public: args.isPublic ?? true }, "input");
      await ctx.services.lifecycle.catalog.setPublic(ctx.actor, rsId, toolId, input);
      return ctx.reads.tool.findFirstOrThrow({ ...query, where: { id: toolId } });
    },
  }),
  approveToolDefinition: t.prismaField({
    type: "Tool",
    description: "POST .../tools/:tool_id/approve-definition: pins the definition last reported by a scan or manifest; the SDK allows the tool again.",
    args: { resourceServerId: t.arg.id({ required: true }), toolId: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const rsId = parseArg(idSchema, args.resourceServerId, "resourceServerId");
      const toolId = parseArg(idSchema, args.toolId, "toolId");
      await ctx.services.lifecycle.catalog.approveDefinition(ctx.actor, rsId, toolId);
      return ctx.reads.tool.findFirstOrThrow({ ...query, where: { id: toolId } });
    },
  }),
  setToolScopes: t.prismaField({
    type: "ResourceServer",
    description: "PUT .../tool-scope-map: bulk, all-or-nothing. After activation removed mappings record tool_unmapped events.",
    args: { resourceServerId: t.arg.id({ required: true }), mappings: t.arg({ type: [ToolScopeMappingInput], required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const rsId = parseArg(idSchema, args.resourceServerId, "resourceServerId");
      const input = parseArg(toolScopeMapSchema, { mappings: args.mappings.map((m) => toWire(m)) }, "input");
      await ctx.services.lifecycle.catalog.setToolScopeMap(ctx.actor, rsId, input);
      return ctx.reads.resourceServer.findFirstOrThrow({ ...query, where: { id: rsId } });
    },
  }),
  setAccessPolicy: t.prismaField({
    type: "AccessPolicy",
    args: { resourceServerId: t.arg.id({ required: true }), input: t.arg({ type: AccessPolicyInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const rsId = parseArg(idSchema, args.resourceServerId, "resourceServerId");
      const { defaultRoleId, ...rest } = args.input;
      // An explicit null clears the role (toWire would drop it as "absent").
      const wire = { ...toWire(rest), ...(defaultRoleId === undefined ? {} : { default_role_id: defaultRoleId }) };
      await ctx.services.lifecycle.accessPolicy.put(ctx.actor, rsId, parseArg(accessPolicySchema, wire, "input"));
      return ctx.reads.accessPolicy.findFirstOrThrow({ ...query, where: { resourceServerId: rsId } });
    },
  }),
  dismissDriftEvent: t.prismaField({
    type: "DriftEvent",
    description: "POST .../drift-events/:event_id/dismiss (idempotent; the row is kept).",
    args: { resourceServerId: t.arg.id({ required: true }), eventId: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const rsId = parseArg(idSchema, args.resourceServerId, "resourceServerId");
      const eventId = parseArg(idSchema, args.eventId, "eventId");
      await ctx.services.lifecycle.drift.dismiss(ctx.actor, rsId, eventId);
      return ctx.reads.driftEvent.findFirstOrThrow({ ...query, where: { id: eventId, rsId } });
    },
  }),
}));
