// What a resource server does with Toolgate at runtime, in a few dozen lines, so the walk-through
// can show enforcement end to end. Credentials: the server's rs_id and introspection secret.
//
//   - The compiled policy comes from GET .../sdk-policy, revalidated with If-None-Match every
//     `refreshMs` (a 304 costs Toolgate next to nothing). Before the server is `ready` the policy is
//     incomplete and every tool call is refused, as Toolgate asks.
//   - Every request needs a bearer token that introspection (POST /oauth/introspect) says is active.
//   - A tools/call is allowed when the tool is in the scope matrix and the token holds one of the
//     scopes listed for it (an empty list = public: any valid token). A tool missing from the matrix
//     answers 403 to everyone.
//   - On start the tool inventory is pushed as the manifest (PUT .../sdk-manifest).
// This is an example, not the SDK: no token cache, no retries with backoff.

export interface GuardOptions {
  toolgateUrl: string;
  rsId: string;
  secret: string;
  refreshMs?: number;
}

interface PolicyDoc {
  policy_complete: boolean;
  reason?: string;
  scope_matrix: Record<string, string[]>;
}

export type Verdict = { ok: true } | { ok: false; status: 401 | 403; error: string; description: string; scope?: string };

export class ToolgateGuard {
  private policy: PolicyDoc | undefined;
  private etag: string | undefined;
  private fetchedAt = 0;
  private readonly basic: string;

  constructor(private readonly opts: GuardOptions) {
    this.basic = `Basic ${Buffer.from(`${opts.rsId}:${opts.secret}`).toString("base64")}`;
  }

  private endpoint(path: string): string {
    return `${this.opts.toolgateUrl.replace(/\/+$/, "")}${path}`;
  }

  /** Fetches the policy when it is older than refreshMs; a 304 keeps the one we have. */
  async currentPolicy(): Promise<PolicyDoc | undefined> {
    if (this.policy && Date.now() - this.fetchedAt < (this.opts.refreshMs ?? 10_000)) return this.policy;
    const res = await fetch(this.endpoint(`/svc/resource-servers/${this.opts.rsId}/sdk-policy`), {
      headers: { authorization: this.basic, ...(this.etag ? { "if-none-match": this.etag } : {}) },
    });
    if (res.status === 200) {
      this.policy = (await res.json()) as PolicyDoc;
      this.etag = res.headers.get("etag") ?? undefined;
    } else if (res.status !== 304) {
      // 401: the secret was rotated; restart with the new one. Until then, fail closed.
      this.policy = undefined;
      this.etag = undefined;
    }
    this.fetchedAt = Date.now();
    return this.policy;
  }

  async pushManifest(tools: readonly { name: string; title?: string; description?: string }[]): Promise<number> {
    const res = await fetch(this.endpoint(`/svc/resource-servers/${this.opts.rsId}/sdk-manifest`), {
      method: "PUT",
      headers: { authorization: this.basic, "content-type": "application/json" },
      body: JSON.stringify({ tools }),
    });
    return res.status;
  }

  /** RFC 7662 introspection of the caller's token; the scopes are resolved by Toolgate. */
  private async introspect(token: string): Promise<{ active: boolean; scope?: string }> {
    const res = await fetch(this.endpoint("/oauth/introspect"), {
      method: "POST",
      headers: { authorization: this.basic, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token }).toString(),
    });
    return res.ok ? ((await res.json()) as { active: boolean; scope?: string }) : { active: false };
  }

  /** Decides one HTTP request carrying `toolCalls` (names of the tools/call messages in it). */
  async check(authorization: string | undefined, toolCalls: string[]): Promise<Verdict> {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
    if (!token) return { ok: false, status: 401, error: "invalid_token", description: "a bearer token is required" };
    const info = await this.introspect(token);
    if (!info.active) return { ok: false, status: 401, error: "invalid_token", description: "the token is not active" };
    if (toolCalls.length === 0) return { ok: true };
    const policy = await this.currentPolicy();
    if (!policy?.policy_complete) return { ok: false, status: 403, error: "access_denied", description: policy?.reason ?? "no policy from Toolgate yet" };
    const held = new Set((info.scope ?? "").split(" ").filter(Boolean));
    for (const tool of toolCalls) {
      const needs = policy.scope_matrix[tool];
      if (needs === undefined) return { ok: false, status: 403, error: "access_denied", description: `the tool ${tool} is not mapped to any scope` };
      if (needs.length > 0 && !needs.some((s) => held.has(s))) {
        return { ok: false, status: 403, error: "insufficient_scope", description: `the tool ${tool} needs one of: ${needs.join(" ")}`, scope: needs.join(" ") };
      }
    }
    return { ok: true };
  }
}
