// toolgate/sdk: ask Toolgate's AuthZEN 1.0 decision endpoint (POST /access/v1/evaluation[s]) whether
// a subject may call a tool of this resource server, authenticated with the server's rs_id and
// introspection secret. For gateways and servers that decide outside the guard (docs/sdk.md
// "AuthZEN"); the guard itself decides from the policy it caches. Only the issuer's URL is fetched
// (no redirects), each call bounded by a timeout; a failure throws (the caller fails closed).
import { CredentialsRefused } from "./toolgate-api";

export interface AuthZenClientOptions {
  /** Toolgate's base URL (the issuer). */
  issuer: string;
  resourceServerId: string;
  introspectionSecret: string;
  /** Per request; default 5 s. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface AuthZenSubject {
  type: "user" | "client" | (string & {});
  id: string;
  properties?: Record<string, unknown>;
}
export interface AuthZenEntity {
  type: string;
  id: string;
  properties?: Record<string, unknown>;
}
export interface AuthZenEvaluation {
  subject: AuthZenSubject;
  action: { name: string; properties?: Record<string, unknown> };
  resource: AuthZenEntity;
  context?: Record<string, unknown>;
}
export interface AuthZenDecision {
  decision: boolean;
  context?: { reason?: string; error?: { status: number; message: string } } & Record<string, unknown>;
}
export type EvaluationsSemantic = "execute_all" | "deny_on_first_deny" | "permit_on_first_permit";

/** Toolgate answered an AuthZEN call with an error status other than 401. */
export class AuthZenRequestFailed extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface ToolCallQuestion {
  /** A user (UUID) or an OAuth client (client_id). */
  subject: { type: "user" | "client"; id: string };
  tool: string;
  /** The client a user acts through. */
  clientId?: string;
  /** The caller's token scope string: the decision is then bounded by it. */
  scope?: string;
  /** The tool's live definition hash (toolDefinitionHash). */
  definitionHash?: string;
}

export interface AuthZenClient {
  /** §6 Access Evaluation. */
  evaluate(request: AuthZenEvaluation, init?: { requestId?: string }): Promise<AuthZenDecision>;
  /** §7 Access Evaluations: `defaults` fill what an entry leaves out. */
  evaluateMany(defaults: Partial<AuthZenEvaluation>, evaluations: Partial<AuthZenEvaluation>[], semantic?: EvaluationsSemantic): Promise<AuthZenDecision[]>;
  /** May `subject` call `tool` on this server now? Decision plus Toolgate's coarse reason when denied. */
  canCallTool(q: ToolCallQuestion): Promise<{ allowed: boolean; reason?: string }>;
}

/** The AuthZEN request for a tool call, in Toolgate's information model. */
export function toolCallEvaluation(q: ToolCallQuestion): AuthZenEvaluation {
  const context: Record<string, unknown> = {};
  if (q.clientId !== undefined) context.client_id = q.clientId;
  if (q.scope !== undefined) context.scope = q.scope;
  return {
    subject: { type: q.subject.type, id: q.subject.id },
    action: { name: "tools/call" },
    resource: { type: "tool", id: q.tool, ...(q.definitionHash !== undefined ? { properties: { definition_hash: q.definitionHash } } : {}) },
    ...(Object.keys(context).length > 0 ? { context } : {}),
  };
}

export function createAuthZenClient(opts: AuthZenClientOptions): AuthZenClient {
  const base = opts.issuer.replace(/\/+$/, "");
  const authorization = `Basic ${Buffer.from(`${opts.resourceServerId}:${opts.introspectionSecret}`).toString("base64")}`;
  const fetchImpl = opts.fetch ?? fetch;
  const timeoutMs = opts.timeoutMs ?? 5_000;

  async function post(path: string, body: unknown, requestId?: string): Promise<unknown> {
    const res = await fetchImpl(base + path, {
      method: "POST",
      headers: { authorization, "content-type": "application/json", accept: "application/json", ...(requestId ? { "x-request-id": requestId } : {}) },
      body: JSON.stringify(body),
      redirect: "error",
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (res.status === 401) throw new CredentialsRefused(path);
    const text = await res.text();
    if (!res.ok) throw new AuthZenRequestFailed(res.status, `Toolgate answered ${res.status} to ${path}: ${text.slice(0, 300)}`);
    return JSON.parse(text) as unknown;
  }

  const client: AuthZenClient = {
    async evaluate(request, init) {
      return (await post("/access/v1/evaluation", request, init?.requestId)) as AuthZenDecision;
    },
    async evaluateMany(defaults, evaluations, semantic) {
      const body = { ...defaults, evaluations, ...(semantic ? { options: { evaluations_semantic: semantic } } : {}) };
      const answer = (await post("/access/v1/evaluations", body)) as { evaluations?: AuthZenDecision[] } & AuthZenDecision;
      return answer.evaluations ?? [answer];
    },
    async canCallTool(q) {
      const d = await client.evaluate(toolCallEvaluation(q));
      return d.decision ? { allowed: true } : { allowed: false, reason: typeof d.context?.reason === "string" ? d.context.reason : undefined };
    },
  };
  return client;
}
