// The end-user sign-in as a browser and an OAuth client do it, in plain fetch, for the tests and
// for scripts/crash-refresh.ts (no vitest, no harness: only a server URL). The browser loads the
// pages and submits their forms the way a browser does; signInWithCode() walks the whole code flow
// (PKCE S256, RFC 8707 resource) and exchanges the code. Failures throw.
import { createHash, randomBytes } from "node:crypto";

/** One page as the browser holds it: the URL it was loaded from, and what came back. */
export interface Page {
  url: URL;
  status: number;
  headers: Headers;
  html: string;
  /** The Location of a redirect, resolved against the page URL. */
  location?: URL;
}

const decodeHtml = (s: string) => s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e]!);

/** The page's form as a browser sees it: the action resolved against the page URL, and the hidden fields. */
export function formOf(page: Page): { action: URL; method: string; fields: Record<string, string> } {
  const form = /<form\s+method="([^"]*)"\s+action="([^"]*)">([\s\S]*?)<\/form>/.exec(page.html);
  if (!form) throw new Error(`no form in page:\n${page.html}`);
  const fields: Record<string, string> = {};
  for (const m of form[3]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[decodeHtml(m[1]!)] = decodeHtml(m[2]!);
  return { method: form[1]!, action: new URL(decodeHtml(form[2]!), page.url), fields };
}

/**
 * A minimal browser: loads pages and submits their forms the way a browser does (the action is
 * resolved against the URL of the page showing the form). URLs are public ones (under the
 * issuer); `route` maps them onto the server, like a reverse proxy that strips the issuer's path.
 */
export function browser(publicUrl: string, serverUrl: string, opts: { cookies?: boolean } = {}) {
  const base = publicUrl.replace(/\/+$/, "");
  // With `cookies`, it keeps the server's cookies as a browser does (the session cookie), by name.
  const jar = new Map<string, string>();
  const keep = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const name = pair.slice(0, pair.indexOf("="));
      if (/max-age=0/i.test(line)) jar.delete(name);
      else jar.set(name, pair.slice(pair.indexOf("=") + 1));
    }
  };
  const route = (u: URL): string => {
    if (u.href !== base && !u.href.startsWith(`${base}/`) && !u.href.startsWith(`${base}?`)) throw new Error(`the browser left the issuer: ${u.href}`);
    return serverUrl + u.href.slice(base.length);
  };
  const load = async (url: URL, init: RequestInit = {}): Promise<Page> => {
    const headers = new Headers(init.headers);
    if (opts.cookies && jar.size > 0) headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
    const res = await fetch(route(url), { ...init, headers, redirect: "manual" });
    if (opts.cookies) keep(res);
    const location = res.headers.get("location");
    return { url, status: res.status, headers: res.headers, html: await res.text(), location: location ? new URL(location, url) : undefined };
  };
  return {
    /** The cookies kept (name -> value); empty without `cookies`. */
    jar,
    open: (url: URL) => load(url),
    async submit(page: Page, fields: Record<string, string>): Promise<Page> {
      const form = formOf(page);
      if (form.method !== "post") throw new Error(`the page's form is not a POST form: ${form.method}`);
      return load(form.action, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ ...form.fields, ...fields }),
      });
    },
  };
}

/** What a token request answered: the status, the parsed JSON body and the request id (the log's key). */
export interface TokenAnswer {
  status: number;
  body: Record<string, any>;
  requestId: string | null;
}

/** POST /oauth/token with client_secret_basic, or as a public client (client_id in the body) when there is no secret. */
export async function tokenRequest(serverUrl: string, client: { clientId: string; clientSecret?: string }, form: Record<string, string>): Promise<TokenAnswer> {
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  if (client.clientSecret !== undefined) {
    headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`).toString("base64")}`;
  }
  const res = await fetch(`${serverUrl}/oauth/token`, {
    method: "POST",
    headers,
    body: new URLSearchParams(client.clientSecret === undefined ? { ...form, client_id: client.clientId } : form),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any>, requestId: res.headers.get("x-request-id") };
}

export interface CodeFlow {
  /** The issuer (TOOLGATE_PUBLIC_URL): the pages' URLs live under it. */
  publicUrl: string;
  /** Where the server actually listens. */
  serverUrl: string;
  clientId: string;
  /** Absent for a public client (token_endpoint_auth_method none). */
  clientSecret?: string;
  redirectUri: string;
  resource: string;
  scope: string;
  email: string;
  password: string;
}

/** The browser part of the code flow: authorize, sign in, allow. Resolves to the code and its PKCE verifier. */
export async function authorizeCode(f: CodeFlow): Promise<{ code: string; verifier: string }> {
  const verifier = randomBytes(32).toString("base64url");
  const url = new URL(`${f.publicUrl.replace(/\/+$/, "")}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: f.clientId,
    redirect_uri: f.redirectUri,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state: randomBytes(8).toString("hex"),
    scope: f.scope,
    resource: f.resource,
  }).toString();
  const b = browser(f.publicUrl, f.serverUrl);
  const login = await b.open(url);
  if (login.status !== 200) throw new Error(`sign-in page: ${login.status} ${login.html}`);
  const consent = await b.submit(login, { email: f.email, password: f.password });
  // A consent the user gave this client before is remembered: no consent page, the code at once.
  const done = consent.status === 302 ? consent : await allow(b, consent);
  const code = done.location?.searchParams.get("code");
  if (done.status !== 302 || !code) throw new Error(`no code: ${done.status} ${done.location ?? done.html}`);
  return { code, verifier };
}

async function allow(b: ReturnType<typeof browser>, consent: Page): Promise<Page> {
  if (consent.status !== 200) throw new Error(`consent page: ${consent.status} ${consent.html}`);
  return b.submit(consent, { decision: "allow" });
}

/** The code exchange (redirect_uri and resource as in the authorization request). */
export function exchangeCode(f: CodeFlow, code: string, verifier: string): Promise<TokenAnswer> {
  return tokenRequest(f.serverUrl, f, { grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: f.redirectUri, resource: f.resource });
}

/** The whole code flow, then the exchange. Resolves to the token response (status 200). */
export async function signInWithCode(f: CodeFlow): Promise<Record<string, any>> {
  const { code, verifier } = await authorizeCode(f);
  const r = await exchangeCode(f, code, verifier);
  if (r.status !== 200) throw new Error(`code exchange: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/**
 * What a sign-in needs, through the admin API (as an operator does it): a resource server, a
 * human_app client (authorization_code + refresh_token), a role holding `scopes` on the server, and
 * `users` bound to it. `adminToken` is a workspace owner's JWT.
 */
export async function setUpSignIn(
  serverUrl: string,
  adminToken: string,
  opts: { name: string; scopes: string[]; users: Array<{ email: string; password: string }>; redirectUri: string; publicBaseUrl?: string },
): Promise<{ resource: string; serverId: string; introspectionSecret: string; clientId: string; clientSecret: string; userIds: string[] }> {
  const admin = async (method: string, path: string, json?: unknown) => {
    const res = await fetch(serverUrl + path, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, ...(json === undefined ? {} : { "content-type": "application/json" }) },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const body = (await res.json()) as Record<string, any>;
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  const tenantId = JSON.parse(Buffer.from(adminToken.split(".")[1]!, "base64url").toString()).tenant_id as string;
  const slug = randomBytes(4).toString("hex");
  const rs = await admin("POST", "/svc/resource-servers", {
    name: opts.name,
    public_base_url: opts.publicBaseUrl ?? `https://${slug}.example.test`,
    protected_base_path: "/mcp",
    scopes_supported: opts.scopes,
  });
  const client = await admin("POST", `/svc/resource-servers/${rs.id}/clients`, {
    client_name: `${opts.name} app`,
    kind: "human_app",
    redirect_uris: [opts.redirectUri],
    allowed_scopes: opts.scopes,
  });
  const role = await admin("POST", "/svc/authmgr/roles", { name: `${opts.name} role ${slug}`, grants: [{ resource_server_id: rs.id, scope_ids: opts.scopes }] });
  const userIds: string[] = [];
  for (const [i, u] of opts.users.entries()) {
    const user = await admin("POST", `/uflow/v2/tenants/${tenantId}/users`, { email: u.email, username: `u${slug}${i}`, password: u.password });
    await admin("POST", `/uflow/v2/users/${user.id}/role-bindings`, { tenant_id: tenantId, role_id: role.id });
    userIds.push(user.id);
  }
  return { resource: rs.resource_url, serverId: rs.id, introspectionSecret: rs.introspection_secret, clientId: client.client_id, clientSecret: client.client_secret, userIds };
}

/** The claims of a JWT (not verified: the tests compare them). */
export const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as Record<string, unknown>;
