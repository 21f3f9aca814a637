// The SDK's only outbound traffic: Toolgate's runtime endpoints, every URL built from the configured
// issuer (SSRF: nothing read from a response, a token or a request is ever fetched; redirects are
// refused, so a proxy in front of the issuer cannot send us elsewhere either). Each call is bounded
// by a timeout. Credentials: Basic rs_id:introspection_secret (spec "Authentication" item 4).

/** Toolgate answered 401 to our own credentials: rotated secret or deleted server. */
export class CredentialsRefused extends Error {
  constructor(readonly endpoint: string) {
    super(
      `Toolgate refused this resource server's credentials (401 from ${endpoint}): the introspection secret was rotated or the resource server was deleted; ` +
        "restart with the current secret (POST .../rotate-introspection-secret shows a new one once)",
    );
  }
}

/** Toolgate answered the manifest push with a 4xx (e.g. 400: an invalid tool list); retrying the same push cannot help. */
export class ManifestRejected extends Error {}

export interface PolicyDocument {
  rs_id: string;
  state: string;
  policy_complete: boolean;
  reason?: string;
  scope_matrix: Record<string, string[]>;
  /** Pinned definition hash per tool (see definition-hash.ts); a tool without one is not pinned. */
  definition_hashes?: Record<string, string>;
  drift_events: unknown[];
}

export interface Introspection {
  active: boolean;
  scope?: string;
  exp?: number;
  sub?: string;
  client_id?: string;
  aud?: string | string[];
}

export interface ManifestTool {
  name: string;
  title?: string;
  description?: string;
  input_schema?: unknown;
  annotations?: unknown;
}

export class ToolgateApi {
  private readonly base: string;
  private readonly authorization: string;

  constructor(
    issuer: string,
    private readonly rsId: string,
    secret: string,
    private readonly timeoutMs: number,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {
    this.base = issuer.replace(/\/+$/, "");
    // RFC 7617 Basic; rs ids and generated secrets are URL-safe, so no encoding question arises.
    this.authorization = `Basic ${Buffer.from(`${rsId}:${secret}`).toString("base64")}`;
  }

  get jwksUrl(): URL {
    return new URL(`${this.base}/oauth/jwks`);
  }

  private runtimeUrl(kind: "sdk-policy" | "sdk-manifest"): string {
    return `${this.base}/svc/resource-servers/${encodeURIComponent(this.rsId)}/${kind}`;
  }

  private call(url: string, init: RequestInit): Promise<Response> {
    return this.fetchImpl(url, { ...init, redirect: "error", signal: AbortSignal.timeout(this.timeoutMs) });
  }

  /** GET sdk-policy; `undefined` when the ETag still matches (304). */
  async policy(etag: string | undefined): Promise<{ document: PolicyDocument; etag: string | undefined } | undefined> {
    const url = this.runtimeUrl("sdk-policy");
    const res = await this.call(url, { headers: { authorization: this.authorization, accept: "application/json", ...(etag ? { "if-none-match": etag } : {}) } });
    if (res.status === 304) return undefined;
    if (res.status === 401) throw new CredentialsRefused("sdk-policy");
    if (res.status !== 200) throw new Error(`sdk-policy answered ${res.status}`);
    return { document: (await res.json()) as PolicyDocument, etag: res.headers.get("etag") ?? undefined };
  }

  async pushManifest(tools: ManifestTool[], sdkVersion: string): Promise<void> {
    const res = await this.call(this.runtimeUrl("sdk-manifest"), {
      method: "PUT",
      headers: { authorization: this.authorization, "content-type": "application/json" },
      body: JSON.stringify({ tools, sdk_version: sdkVersion }),
    });
    if (res.status === 401) throw new CredentialsRefused("sdk-manifest");
    if (res.status >= 500) throw new Error(`sdk-manifest answered ${res.status}`); // transient: pushed again at the next refresh
    if (!res.ok) throw new ManifestRejected(`Toolgate rejected this server's tool manifest (sdk-manifest answered ${res.status}): ${(await res.text()).slice(0, 500)}`);
    await res.body?.cancel();
  }

  /** RFC 7662 §2.1. The scopes are the ones the subject may hold now, not those the token was issued with. */
  async introspect(token: string): Promise<Introspection> {
    const res = await this.call(`${this.base}/oauth/introspect`, {
      method: "POST",
      headers: { authorization: this.authorization, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams({ token, token_type_hint: "access_token" }).toString(),
    });
    if (res.status === 401) throw new CredentialsRefused("/oauth/introspect");
    if (res.status !== 200) throw new Error(`introspection answered ${res.status}`);
    return (await res.json()) as Introspection;
  }
}
