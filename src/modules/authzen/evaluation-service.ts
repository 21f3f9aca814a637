// The AuthZEN 1.0 Access Evaluation API (§6) and Access Evaluations API (§7) over Toolgate's tool
// decision (decide.ts), and the PDP metadata (§9, /.well-known/authzen-configuration).
//
// Toolgate's information model (docs/evidence-and-authzen.md "AuthZEN"):
//   subject  {type: "user", id: <user UUID>} | {type: "client", id: <OAuth client_id>}
//   action   {name: "tools/call"}  ("call" is accepted as the same action)
//   resource {type: "tool", id: <tool name>, properties?: {definition_hash?}} on the calling server
//   context  {client_id?: the client a user acts through, scope?: the token's scope string}
// The answer is {"decision": true} or {"decision": false, "context": {"reason": <coarse reason>}}.
import type { RegisteredServer } from "../resource-servers";
import type { ToolAccessDecider, ToolQuestion, DenyReason } from "./decide";
import type { EvaluationRequest, EvaluationsRequest } from "./schemas";
import { evaluationSchema } from "./schemas";

export const TOOL_CALL_ACTIONS: ReadonlySet<string> = new Set(["tools/call", "call"]);
export const SUBJECT_TYPES: ReadonlySet<string> = new Set(["user", "client"]);

export type EvaluationResult = { decision: true } | { decision: false; context: { reason: DenyReason } | { error: { status: number; message: string } } };

export interface AuthZenConfiguration {
  policy_decision_point: string;
  access_evaluation_endpoint: string;
  access_evaluations_endpoint: string;
}

export const EVALUATION_PATH = "/access/v1/evaluation";
export const EVALUATIONS_PATH = "/access/v1/evaluations";

export class AuthZenService {
  constructor(
    private readonly decider: ToolAccessDecider,
    private readonly publicUrl: string,
  ) {}

  /** §9.1 PDP metadata: where the evaluation endpoints are. */
  configuration(): AuthZenConfiguration {
    const base = this.publicUrl.replace(/\/+$/, "");
    return { policy_decision_point: base, access_evaluation_endpoint: base + EVALUATION_PATH, access_evaluations_endpoint: base + EVALUATIONS_PATH };
  }

  /** §6: one decision. */
  async evaluate(rs: RegisteredServer, req: EvaluationRequest): Promise<EvaluationResult> {
    const question = toQuestion(req);
    if (!question) return { decision: false, context: { reason: "unsupported_request" } };
    const d = await this.decider.decide(rs, question);
    return d.decision ? { decision: true } : { decision: false, context: { reason: d.reason } };
  }

  /**
   * §7: many decisions. Without `evaluations` (or with an empty array) it is the single evaluation
   * of the defaults (§7.1: backwards compatible). execute_all answers every entry in order;
   * deny_on_first_deny and permit_on_first_permit stop after the first deny or permit, answering
   * the entries evaluated so far (the last one being the deciding one).
   */
  async evaluateMany(rs: RegisteredServer, req: EvaluationsRequest): Promise<EvaluationResult | { evaluations: EvaluationResult[] }> {
    const defaults = { subject: req.subject, action: req.action, resource: req.resource, context: req.context };
    if (!req.evaluations || req.evaluations.length === 0) {
      const one = evaluationSchema.safeParse(defaults);
      if (!one.success) return { decision: false, context: { error: { status: 400, message: firstIssue(one.error) } } };
      return this.evaluate(rs, one.data);
    }
    const semantic = req.options?.evaluations_semantic ?? "execute_all";
    const out: EvaluationResult[] = [];
    for (const entry of req.evaluations) {
      const merged = evaluationSchema.safeParse({
        subject: entry.subject ?? defaults.subject,
        action: entry.action ?? defaults.action,
        resource: entry.resource ?? defaults.resource,
        context: entry.context ?? defaults.context,
      });
      // A malformed entry is a deny carrying the error (§7.2.1), not a failure of the whole call.
      const result: EvaluationResult = merged.success ? await this.evaluate(rs, merged.data) : { decision: false, context: { error: { status: 400, message: firstIssue(merged.error) } } };
      out.push(result);
      if (semantic === "deny_on_first_deny" && !result.decision) break;
      if (semantic === "permit_on_first_permit" && result.decision) break;
    }
    return { evaluations: out };
  }
}

function toQuestion(req: EvaluationRequest): ToolQuestion | undefined {
  if (!SUBJECT_TYPES.has(req.subject.type) || !TOOL_CALL_ACTIONS.has(req.action.name) || req.resource.type !== "tool") return undefined;
  const ctx = req.context ?? {};
  const props = req.resource.properties ?? {};
  return {
    subject: { type: req.subject.type as "user" | "client", id: req.subject.id },
    tool: req.resource.id,
    clientId: typeof ctx.client_id === "string" ? ctx.client_id : undefined,
    tokenScope: typeof ctx.scope === "string" ? ctx.scope : undefined,
    definitionHash: typeof props.definition_hash === "string" ? props.definition_hash : undefined,
  };
}

function firstIssue(e: { issues: { path: PropertyKey[]; message: string }[] }): string {
  const i = e.issues[0];
  return i ? `${i.path.map(String).join(".") || "request"}: ${i.message}` : "invalid request";
}
