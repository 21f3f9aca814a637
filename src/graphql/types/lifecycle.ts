// The lifecycle read side of a resource server in the graph: setup checklist, compiled scope
// matrix, manifest status, access policy and drift events. The checklist's inputs come from the
// module's own reader (readSetupInputs, the one SetupService uses) and are judged by its own pure
// functions (buildChecklist, compileScopeMatrix, manifestWarnings), so the graph and REST read and
// judge the same rows the same way; the request's loaders (../loaders.ts) batch every server of
// the operation into a fixed number of queries.
import type { SdkManifest } from "../../generated/sqlite/client";
import {
  CHECKLIST_IDS,
  DRIFT_EVENT_LIST,
  DRIFT_EVENT_TYPES,
  FIRST_TIME_GRANTS,
  SERVER_STATES,
  buildChecklist,
  checklistFacts,
  compileScopeMatrix,
  deniedTools,
  manifestWarnings,
  type Checklist,
} from "../../modules/resource-servers";
import { builder } from "../builder";
import { ResourceServerStateEnum, enumValue } from "./enums";
import { CURSOR_DESCRIPTION, pageArgs, pageOf } from "./pagination";

// ---------------------------------------------------------------- types

export const ChecklistItemIdEnum = builder.enumType("SetupChecklistItemId", { values: CHECKLIST_IDS });

const ChecklistItemRef = builder.objectRef<Checklist["checklist"][number]>("SetupChecklistItem").implement({
  fields: (t) => ({
    id: t.field({ type: ChecklistItemIdEnum, resolve: (i) => i.id }),
    ok: t.exposeBoolean("ok"),
    detail: t.exposeString("detail", { description: "What is done or what is missing, for a person." }),
  }),
});

export const SetupChecklistRef = builder.objectRef<Checklist>("SetupChecklist").implement({
  description: "GET /svc/resource-servers/:id/setup: activation needs every item ok and the state needs_setup.",
  fields: (t) => ({
    state: t.field({ type: ResourceServerStateEnum, resolve: (c) => c.state }),
    canActivate: t.exposeBoolean("can_activate"),
    reason: t.exposeString("reason", { nullable: true, description: "Set when the state, not the checklist, blocks activation." }),
    items: t.field({ type: [ChecklistItemRef], resolve: (c) => c.checklist }),
  }),
});

interface MatrixView {
  entries: { toolName: string; scopeIds: string[] }[];
  deniedTools: string[];
  publicTools: string[];
}

const MatrixEntryRef = builder.objectRef<MatrixView["entries"][number]>("ScopeMatrixEntry").implement({
  fields: (t) => ({
    toolName: t.exposeString("toolName"),
    scopeIds: t.exposeStringList("scopeIds", { description: "Empty: the tool is public." }),
  }),
});

const ScopeMatrixRef = builder.objectRef<MatrixView>("ScopeMatrix").implement({
  description: "The compiled tool-to-scope policy (what sdk-policy serves once the server is ready). Tools not listed are denied.",
  fields: (t) => ({
    entries: t.field({ type: [MatrixEntryRef], resolve: (m) => m.entries }),
    deniedTools: t.exposeStringList("deniedTools"),
    publicTools: t.exposeStringList("publicTools"),
  }),
});

type ManifestStatus = ReturnType<typeof manifestWarnings> & { row: SdkManifest | null };

const ManifestStatusRef = builder.objectRef<ManifestStatus>("SdkManifestStatus").implement({
  description: "GET .../sdk-manifest-status: the runtime's last manifest push and what it says about the mapping.",
  fields: (t) => ({
    pushed: t.boolean({ resolve: (s) => s.row !== null }),
    pushedAt: t.field({ type: "DateTime", nullable: true, resolve: (s) => s.row?.pushedAt ?? null }),
    valid: t.boolean({ nullable: true, resolve: (s) => s.row?.valid ?? null }),
    toolCount: t.int({ resolve: (s) => s.row?.toolCount ?? 0 }),
    validationErrors: t.stringList({ resolve: (s) => (Array.isArray(s.row?.validationErrors) ? (s.row!.validationErrors as string[]) : []) }),
    warnings: t.exposeStringList("warnings"),
    unmappedTools: t.exposeStringList("unmapped_tools"),
    missingFromManifest: t.exposeStringList("missing_from_manifest"),
  }),
});

export const FirstTimeGrantEnum = builder.enumType("FirstTimeGrant", { values: FIRST_TIME_GRANTS });

builder.prismaObject("AccessPolicy", {
  select: { resourceServerId: true },
  fields: (t) => ({
    enabled: t.exposeBoolean("enabled"),
    defaultRoleId: t.exposeID("defaultRoleId", { nullable: true }),
    defaultRoleName: t.string({ nullable: true, select: { defaultRole: { select: { name: true } } }, resolve: (p) => p.defaultRole?.name ?? null }),
    firstTimeGrant: t.field({ type: FirstTimeGrantEnum, select: { firstTimeGrant: true }, resolve: (p) => enumValue(FIRST_TIME_GRANTS, p.firstTimeGrant, "first-time grant") }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    updatedBy: t.exposeID("updatedBy", { nullable: true }),
  }),
});

export const DriftEventTypeEnum = builder.enumType("DriftEventType", { values: DRIFT_EVENT_TYPES });

type Payload = Record<string, unknown>;
const str = (p: Payload, k: string) => (typeof p[k] === "string" ? (p[k] as string) : null);

const DriftPayloadRef = builder.objectRef<Payload>("DriftEventPayload").implement({
  description: "event_payload; each kind sets its own fields (spec Events table), the others are null.",
  fields: (t) => ({
    priorScopeId: t.string({ nullable: true, resolve: (p) => str(p, "prior_scope_id") }),
    priorScopeName: t.string({ nullable: true, resolve: (p) => str(p, "prior_scope_name") }),
    toolsAffected: t.int({ nullable: true, resolve: (p) => (typeof p.tools_affected === "number" ? p.tools_affected : null) }),
    toolName: t.string({ nullable: true, resolve: (p) => str(p, "tool_name") }),
    priorDefaultRole: t.string({ nullable: true, resolve: (p) => str(p, "prior_default_role") }),
    newDefaultRole: t.string({ nullable: true, resolve: (p) => str(p, "new_default_role") }),
    rotatedBy: t.string({ nullable: true, resolve: (p) => str(p, "rotated_by") }),
    rotatedAt: t.string({ nullable: true, resolve: (p) => str(p, "rotated_at") }),
  }),
});

builder.prismaObject("DriftEvent", {
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID("id"),
    rsId: t.exposeID("rsId"),
    eventType: t.field({ type: DriftEventTypeEnum, select: { eventType: true }, resolve: (e) => enumValue(DRIFT_EVENT_TYPES, e.eventType, "drift event type") }),
    payload: t.field({ type: DriftPayloadRef, select: { eventPayload: true }, resolve: (e) => (e.eventPayload ?? {}) as Payload }),
    occurredAt: t.expose("occurredAt", { type: "DateTime" }),
    occurredBy: t.exposeID("occurredBy", { nullable: true }),
    dismissedAt: t.expose("dismissedAt", { type: "DateTime", nullable: true }),
    dismissedBy: t.exposeID("dismissedBy", { nullable: true }),
    cursor: t.string({ description: CURSOR_DESCRIPTION, select: { occurredAt: true }, resolve: (e) => DRIFT_EVENT_LIST.cursorAfter(e) }),
  }),
});

builder.prismaObjectFields("ResourceServer", (t) => ({
  setup: t.field({
    type: SetupChecklistRef,
    description: "The setup checklist (batched for every server of the operation).",
    select: { state: true },
    resolve: async (rs, _args, ctx) =>
      buildChecklist(checklistFacts(enumValue(SERVER_STATES, rs.state, "resource server state"), await ctx.loaders.setupInputs.load(rs.id))),
  }),
  scopeMatrix: t.field({
    type: ScopeMatrixRef,
    description: "The policy activation enforces (or enforces now, once ready).",
    resolve: async (rs, _args, ctx) => {
      const { tools } = await ctx.loaders.setupInputs.load(rs.id);
      const matrix = compileScopeMatrix(tools);
      return {
        entries: Object.entries(matrix).map(([toolName, scopeIds]) => ({ toolName, scopeIds })),
        deniedTools: deniedTools(tools),
        publicTools: tools.filter((x) => x.isPublic).map((x) => x.name),
      };
    },
  }),
  manifestStatus: t.field({
    type: ManifestStatusRef,
    resolve: async (rs, _args, ctx) => {
      const [row, inputs] = await Promise.all([ctx.loaders.manifests.load(rs.id), ctx.loaders.setupInputs.load(rs.id)]);
      const diff = row?.valid ? manifestWarnings(row.tools as string[], inputs.tools) : { unmapped_tools: [], missing_from_manifest: [], warnings: [] };
      return { ...diff, row };
    },
  }),
  accessPolicy: t.relation("accessPolicy", { nullable: true, description: "Null until an administrator sets it." }),
  driftEvents: t.relation("driftEvents", {
    description: "Policy changes after activation, newest first (one page: first, after).",
    args: { undismissed: t.arg.boolean({ required: false, defaultValue: false }), ...pageArgs },
    query: (args) => {
      const page = pageOf(DRIFT_EVENT_LIST, args);
      return {
        where: DRIFT_EVENT_LIST.where(args.undismissed ? { dismissedAt: null } : {}, page.cursor),
        orderBy: DRIFT_EVENT_LIST.orderBy,
        take: page.limit,
      };
    },
  }),
}));
