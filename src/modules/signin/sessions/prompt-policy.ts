// When the authorization endpoint must ask the person something, as data (OIDC Core §3.1.2.1
// `prompt`, `max_age`, `login_hint`, `id_token_hint`). Two prompts, each a list of checks; the
// first check that fires decides. Without prompt=none it names the page to show; with prompt=none
// its `error` goes back to the client. The `reason` strings are stable: they are the sign-in's
// decision trace (the vocabulary of docs/openid-provider.md "Prompt policy"), logged and reported
// to audit, and tests name them.
import type { BrowserSession } from "./browser-sessions";

export type PromptName = "login" | "second_factor" | "consent";
export type PromptError = "login_required" | "interaction_required" | "consent_required";

/** What the checks look at, gathered by the sign-in service before it decides. */
export interface PromptContext {
  now: Date;
  /** The browser's live session for this workspace, or null. */
  session: BrowserSession | null;
  /** The session user's email (to compare login_hint), when there is a session. */
  sessionEmail?: string;
  request: {
    prompt: ReadonlySet<string>;
    maxAge?: number;
    loginHint?: string;
    /** The `sub` of a valid id_token_hint. */
    idTokenHintSub?: string;
  };
  /** The session user has a second factor enrolled now. */
  secondFactorEnrolled: boolean;
  /** The remembered consent covers every scope this request would grant. */
  consentCovered: boolean;
}

export interface PromptCheck {
  readonly reason: string;
  readonly description: string;
  readonly error: PromptError;
  /** True when this check needs the person: the prompt must be shown. */
  readonly fires: (c: PromptContext) => boolean;
}

export interface Prompt {
  readonly name: PromptName;
  readonly checks: readonly PromptCheck[];
}

export const PROMPT_POLICY: readonly Prompt[] = [
  {
    name: "login",
    checks: [
      { reason: "no_session", description: "the browser has no live session in this workspace", error: "login_required", fires: (c) => c.session === null },
      { reason: "login_prompt", description: "the client asked for a fresh sign-in (prompt=login)", error: "login_required", fires: (c) => c.request.prompt.has("login") },
      {
        reason: "max_age",
        description: "the last sign-in is older than the client's max_age",
        error: "login_required",
        fires: (c) => c.request.maxAge !== undefined && c.session !== null && c.now.getTime() - c.session.authTime.getTime() > c.request.maxAge * 1000,
      },
      {
        reason: "id_token_hint",
        description: "the id_token_hint names another user than the session's",
        error: "login_required",
        fires: (c) => c.request.idTokenHintSub !== undefined && c.session !== null && c.request.idTokenHintSub !== c.session.userId,
      },
      {
        reason: "login_hint",
        description: "the login_hint names another account than the session's",
        error: "login_required",
        fires: (c) => c.request.loginHint !== undefined && c.sessionEmail !== undefined && c.request.loginHint.trim().toLowerCase() !== c.sessionEmail,
      },
    ],
  },
  {
    name: "second_factor",
    checks: [
      {
        reason: "second_factor_missing",
        description: "the account has a second factor that this session did not use",
        error: "interaction_required",
        fires: (c) => c.secondFactorEnrolled && c.session !== null && !c.session.factors.some((f) => f !== "pwd"),
      },
    ],
  },
  {
    name: "consent",
    checks: [
      { reason: "consent_prompt", description: "the client asked for the consent page (prompt=consent)", error: "consent_required", fires: (c) => c.request.prompt.has("consent") },
      { reason: "scopes_not_consented", description: "the request asks for scopes the user has not allowed this client", error: "consent_required", fires: (c) => !c.consentCovered },
    ],
  },
];

/** The stable reason strings, for the decision-trace vocabulary. */
export const PROMPT_REASONS: readonly string[] = PROMPT_POLICY.flatMap((p) => p.checks.map((c) => c.reason));

export interface PromptDecision {
  prompt: PromptName;
  reason: string;
  error: PromptError;
}

/** The first check of `prompts` (in policy order) that fires, or null when none does. */
export function firstPrompt(context: PromptContext, prompts: readonly PromptName[] = ["login", "second_factor", "consent"]): PromptDecision | null {
  for (const p of PROMPT_POLICY) {
    if (!prompts.includes(p.name)) continue;
    const fired = p.checks.find((c) => c.fires(context));
    if (fired) return { prompt: p.name, reason: fired.reason, error: fired.error };
  }
  return null;
}
