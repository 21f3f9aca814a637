// The decision for one tool and one caller, from Toolgate's compiled policy (pure: no I/O).
//   policy incomplete (server not ready, or none fetched yet) -> every tool denied, with the reason
//   tool absent from the scope matrix                          -> denied to everyone
//   tool's live definition differs from the pinned hash        -> denied until an admin re-approves
//   matrix lists [] (public)                                    -> any valid token
//   matrix lists scopes                                         -> the caller holds one of them
//                                                                  (else insufficient_scope: step-up)
import type { PolicyDocument } from "./toolgate-api";

export type ToolDecision =
  | { allowed: true }
  | { allowed: false; kind: "denied"; description: string }
  | { allowed: false; kind: "insufficient_scope"; description: string; needed: string[] };

export function decideTool(policy: PolicyDocument | undefined, liveHashes: ReadonlyMap<string, string>, tool: string, held: readonly string[]): ToolDecision {
  if (!policy) return { allowed: false, kind: "denied", description: "no policy from Toolgate yet: every tool is denied" };
  if (!policy.policy_complete) return { allowed: false, kind: "denied", description: `the policy is incomplete: ${policy.reason ?? `server state ${policy.state}`}` };
  const needs = Object.hasOwn(policy.scope_matrix, tool) ? policy.scope_matrix[tool] : undefined;
  if (needs === undefined) return { allowed: false, kind: "denied", description: `the tool ${tool} is not mapped to any scope: it is denied to everyone` };
  const pinned = policy.definition_hashes && Object.hasOwn(policy.definition_hashes, tool) ? policy.definition_hashes[tool] : undefined;
  if (pinned !== undefined && liveHashes.get(tool) !== pinned) {
    return { allowed: false, kind: "denied", description: `the definition of the tool ${tool} changed since it was approved: denied until an administrator re-approves it` };
  }
  if (needs.length === 0 || needs.some((s) => held.includes(s))) return { allowed: true };
  return { allowed: false, kind: "insufficient_scope", description: `the tool ${tool} needs one of: ${needs.join(" ")}`, needed: needs };
}

/** The scopes the policy mentions (sorted): what scopes_supported says when not configured. */
export function policyScopes(policy: PolicyDocument | undefined): string[] {
  if (!policy) return [];
  return [...new Set(Object.values(policy.scope_matrix).flat())].sort();
}
