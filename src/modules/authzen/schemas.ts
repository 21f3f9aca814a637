// The OpenID AuthZEN Authorization API 1.0 request shapes (§5 information model, §6 access
// evaluation, §7 access evaluations), as zod schemas. Unknown members are allowed everywhere (the
// spec lets entities carry `properties` and callers add context freely); Toolgate reads only the
// members its decision needs.
import { z } from "zod";

const text = z.string().min(1).max(512);
const properties = z.record(z.string(), z.unknown()).optional();

export const subjectSchema = z.object({ type: text, id: text, properties }).passthrough();
export const actionSchema = z.object({ name: text, properties }).passthrough();
export const resourceSchema = z.object({ type: text, id: text, properties }).passthrough();
export const contextSchema = z.record(z.string(), z.unknown());

/** §6.1: subject, action and resource are REQUIRED; context is OPTIONAL. */
export const evaluationSchema = z.object({
  subject: subjectSchema,
  action: actionSchema,
  resource: resourceSchema,
  context: contextSchema.optional(),
});
export type EvaluationRequest = z.infer<typeof evaluationSchema>;

/** How many evaluations one /access/v1/evaluations call may carry. */
export const MAX_EVALUATIONS = 100;

export const EVALUATIONS_SEMANTICS = ["execute_all", "deny_on_first_deny", "permit_on_first_permit"] as const;

/**
 * §7.1: top-level subject, action, resource and context are defaults; each entry of `evaluations`
 * may set any of them, replacing the default (whole objects, not merged member by member).
 */
export const evaluationsSchema = z.object({
  subject: subjectSchema.optional(),
  action: actionSchema.optional(),
  resource: resourceSchema.optional(),
  context: contextSchema.optional(),
  evaluations: z
    .array(z.object({ subject: subjectSchema.optional(), action: actionSchema.optional(), resource: resourceSchema.optional(), context: contextSchema.optional() }))
    .max(MAX_EVALUATIONS, `at most ${MAX_EVALUATIONS} evaluations per request`)
    .optional(),
  options: z.object({ evaluations_semantic: z.enum(EVALUATIONS_SEMANTICS).optional() }).passthrough().optional(),
});
export type EvaluationsRequest = z.infer<typeof evaluationsSchema>;
