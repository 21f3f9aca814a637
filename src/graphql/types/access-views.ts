// The access views on the graph (docs/access-explained.md), through the same services as REST:
// `ResourceServer.posture` (batched by a loader: one set of grouped queries for every server of the
// operation), `accessSimulation` and `recentFailures`. Roles as REST (docs/decisions/0032).
import { recentFailuresQuery, simulationInputSchema, type FailureItem, type PostureStats, type SimulationResult, type TraceStep } from "../../modules/access-views";
import { builder } from "../builder";
import { parseArg } from "../validation";
import { ResourceServerRef } from "./resource-server";

type ToolCounts = PostureStats["tools"];
const ToolCountsRef = builder.objectRef<ToolCounts>("ApplicationToolCounts").implement({
  fields: (t) => ({
    total: t.exposeInt("total"),
    mapped: t.exposeInt("mapped", { description: "Not public, mapped to at least one scope." }),
    public: t.exposeInt("public"),
    unmapped: t.exposeInt("unmapped", { description: "Neither public nor mapped: denied to everyone once ready." }),
    pinnedDefinitionChanged: t.exposeInt("pinned_definition_changed"),
  }),
});

const PostureRef = builder.objectRef<PostureStats>("ApplicationPosture").implement({
  description: "An application's access posture (GET /svc/v1/workspaces/:id/applications/posture-summary).",
  fields: (t) => ({
    tools: t.field({ type: ToolCountsRef, resolve: (p) => p.tools }),
    openDriftEvents: t.exposeInt("open_drift_events"),
    pendingAccessRequests: t.exposeInt("pending_access_requests"),
    usersWithAccess: t.exposeInt("users_with_access", { description: "Users holding at least one scope on the application now (the scope resolver's rule)." }),
    bindingsExpiring7d: t.exposeInt("bindings_expiring_7d"),
    clients: t.string({ description: "Clients by kind and status as JSON text: {prereg: {<status>: n}, connected: {<status>: n}}.", resolve: (p) => JSON.stringify(p.clients) }),
  }),
});

builder.objectField(ResourceServerRef, "posture", (t) =>
  t.field({ type: PostureRef, description: "Access posture (owners, admins, read-only auditors).", resolve: (rs, _args, ctx) => ctx.loaders.posture.load(rs.id) }),
);

const TraceStepRef = builder.objectRef<TraceStep>("DecisionTraceStep").implement({
  fields: (t) => ({
    check: t.exposeString("check"),
    state: t.exposeString("state", { description: "ok | blocked | skipped | not_evaluated" }),
    relevance: t.exposeString("relevance", { nullable: true }),
    reason: t.exposeString("reason", { nullable: true }),
    detail: t.string({ nullable: true, description: "JSON text.", resolve: (s) => (s.detail ? JSON.stringify(s.detail) : null) }),
  }),
});

const SimulationRef = builder.objectRef<SimulationResult>("AccessSimulation").implement({
  description: "POST /svc/v1/applications/:id/access-simulations (docs/access-explained.md).",
  fields: (t) => ({
    decisionId: t.exposeString("decision_id"),
    verdict: t.exposeString("verdict"),
    failedCondition: t.exposeString("failed_condition", { nullable: true }),
    safestFix: t.exposeString("safest_fix", { nullable: true }),
    fix: t.string({ nullable: true, description: "The machine-readable fix as JSON text.", resolve: (r) => (r.fix ? JSON.stringify(r.fix) : null) }),
    requiredScopes: t.exposeStringList("required_scopes"),
    effectiveScopes: t.exposeStringList("effective_scopes"),
    decisionTrace: t.field({ type: [TraceStepRef], resolve: (r) => r.decision_trace }),
    matchedBindingIds: t.stringList({ resolve: (r) => r.matched_bindings.map((b) => b.binding_id) }),
    policyEtag: t.string({ nullable: true, resolve: (r) => r.policy_revision.policy_etag }),
    auditSeq: t.int({ resolve: (r) => r.policy_revision.audit_seq }),
  }),
});

builder.queryField("accessSimulation", (t) =>
  t.field({
    type: SimulationRef,
    description: "May this user call this tool (through this client)? Owners and admins.",
    args: { applicationId: t.arg.id({ required: true }), userId: t.arg.id({ required: true }), toolId: t.arg.id({ required: true }), clientId: t.arg.string({ required: false }) },
    resolve: (_root, args, ctx) => {
      const input = parseArg(simulationInputSchema, { user_id: String(args.userId), tool_id: String(args.toolId), ...(args.clientId ? { client_id: args.clientId } : {}) }, "input");
      return ctx.services.accessViews.simulations.simulate(ctx.actor, String(args.applicationId), input);
    },
  }),
);

const FailureRef = builder.objectRef<FailureItem>("RecentFailure").implement({
  fields: (t) => ({
    eventId: t.exposeString("event_id"),
    occurredAt: t.field({ type: "DateTime", resolve: (f) => new Date(f.occurred_at) }),
    stage: t.exposeString("stage"),
    action: t.exposeString("action"),
    error: t.exposeString("error", { nullable: true }),
    reason: t.exposeString("reason", { nullable: true }),
    check: t.exposeString("check", { nullable: true }),
    count: t.exposeInt("count"),
    lastAt: t.field({ type: "DateTime", resolve: (f) => new Date(f.last_at) }),
  }),
});

builder.queryField("recentFailures", (t) =>
  t.field({
    type: [FailureRef],
    description: "Why did this fail: the latest sign-in and OAuth failures of one client (OAuth client_id) or one user, newest first (at most 50).",
    args: { clientId: t.arg.string({ required: false }), userId: t.arg.id({ required: false }), first: t.arg.int({ required: false }) },
    resolve: async (_root, args, ctx) => {
      const q = parseArg(recentFailuresQuery, { ...(args.clientId ? { client_id: args.clientId } : {}), ...(args.userId ? { user_id: String(args.userId) } : {}), ...(args.first ? { limit: args.first } : {}) }, "args");
      return (await ctx.services.accessViews.failures.recent(ctx.actor, ctx.actor.tenantId, q)).items;
    },
  }),
);
