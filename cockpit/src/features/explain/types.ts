// Wire shapes of the access simulation and the change preview (docs/access-explained.md,
// docs/evidence-and-authzen.md): what this screen reads of them.
export interface TraceStep {
  check: string;
  state: "ok" | "blocked" | "skipped" | "not_evaluated";
  relevance?: string;
  reason?: string;
  detail?: Record<string, unknown>;
}

/** A change in the preview's vocabulary (src/modules/access-changes/schemas.ts); the fixes use two kinds. */
export type FixChange =
  | { kind: "binding_add"; subject_type: "user"; subject_id: string; role_id: string; scope_type: "resource_server"; scope_id: string }
  | { kind: "tool_mapping"; tool_name: string; scope_ids: string[] };

export interface PreviewSummary {
  users_gaining: number;
  users_losing: number;
  scopes_gained: string[];
  scopes_lost: string[];
  tools_gained: string[];
  tools_lost: string[];
}

export interface Fix {
  kind: string;
  role_name?: string;
  impact: { change: FixChange; summary: PreviewSummary; warnings: { code: string; message: string }[] } | null;
  [k: string]: unknown;
}

export interface Simulation {
  decision_id: string;
  evaluated_at: string;
  verdict: "allowed" | "denied";
  failed_condition: string | null;
  safest_fix: string | null;
  fix: Fix | null;
  tool: { tool_id: string; name: string; public: boolean; scopes: string[] };
  required_scopes: string[];
  effective_scopes: string[];
  decision_trace: TraceStep[];
  matched_bindings: { binding_id: string; role_name: string; via: string }[];
}

export interface ChangePreview {
  written: false;
  users_evaluated: number;
  summary: PreviewSummary;
  users: { user_id: string; gains: { scopes: string[]; tools: string[] }; losses: { scopes: string[]; tools: string[] } }[];
  truncated: boolean;
  warnings: { code: string; message: string }[];
}
