// AuthZEN 1.0 (OpenID Authorization API) decision endpoint for resource servers and gateways:
// decision + coarse reason, from the same resolver introspection and the SDK use.
import { ToolAccessDecider, type DeciderDeps } from "./decide";
import { AuthZenService } from "./evaluation-service";

export { ToolAccessDecider, DENY_REASONS, type DenyReason, type ToolDecision, type ToolQuestion } from "./decide";
export { AuthZenService, EVALUATION_PATH, EVALUATIONS_PATH, type EvaluationResult, type AuthZenConfiguration } from "./evaluation-service";
export { evaluationSchema, evaluationsSchema, MAX_EVALUATIONS, type EvaluationRequest, type EvaluationsRequest } from "./schemas";

export function createAuthZen(deps: DeciderDeps & { publicUrl: string }): AuthZenService {
  return new AuthZenService(new ToolAccessDecider(deps), deps.publicUrl);
}
