// Token issuance for a signed-in user, repeated: the refresh_token grant, each request rotating
// its chain (kept outside scenarios/, where every file is a scenario). A refresh token is single
// use, so autocannon cannot repeat one body: the set-up signs one user in once (the browser
// session, then one authorization per chain without a password) and mints a pool of refresh-token
// chains; each request takes a chain from the pool and gives it back with the new token when the
// answer arrives. A chain whose answer a slice's end dropped is left out (the pool is large enough
// for every slice of a run). With `openid`, each answer also carries an ID token.
import { createHash, randomBytes } from "node:crypto";
import type { AutocannonRequest, BenchContext } from "./scenario";
import { createServer } from "./oauth-fixtures";

const REDIRECT = "http://127.0.0.1/callback";
const POOL = 800;

interface Chain {
  rt: string;
}

export async function refreshRequest(ctx: BenchContext, label: string, scope: string): Promise<AutocannonRequest> {
  const server = await createServer(ctx, label);
  const client = await ctx.admin("POST", `/svc/resource-servers/${server.id}/clients`, {
    client_name: `bench ${label}`,
    kind: "human_app",
    redirect_uris: [REDIRECT],
    allowed_scopes: ["files:read"],
  });
  const workspace = JSON.parse(Buffer.from(ctx.adminToken.split(".")[1]!, "base64url").toString()).workspace_id as string;
  const email = `bench-${label}-${randomBytes(3).toString("hex")}@example.test`;
  const password = "bench-password-123";
  const user = await ctx.admin("POST", `/uflow/v2/tenants/${workspace}/users`, { email, username: "bench", password });
  const role = await ctx.admin("POST", "/svc/authmgr/roles", { name: `reader-${email}`, grants: [{ resource_server_id: server.id, scope_ids: ["files:read"] }] });
  await ctx.admin("POST", `/uflow/v2/users/${user.id}/role-bindings`, { tenant_id: workspace, role_id: role.id });
  const basic = `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString("base64")}`;
  const form = { "content-type": "application/x-www-form-urlencoded" };
  let cookie = "";

  /** One authorization in the session (the first signs in and allows), exchanged for a chain's first refresh token. */
  const chain = async (): Promise<Chain> => {
    const verifier = randomBytes(32).toString("base64url");
    const url = new URL(`${ctx.url}/oauth/authorize`);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      scope,
      resource: server.resource_url,
      nonce: "bench",
    }).toString();
    let res = await fetch(url, { redirect: "manual", headers: cookie ? { cookie } : {} });
    if (res.status === 200) {
      const ticket = /name="ticket" value="([^"]+)"/.exec(await res.text())![1]!;
      res = await fetch(`${ctx.url}/oauth/authorize/login`, { method: "POST", redirect: "manual", headers: form, body: new URLSearchParams({ ticket, email, password }) });
      cookie = (res.headers.get("set-cookie") ?? "").split(";")[0]!;
      if (res.status === 200) {
        const consent = /name="ticket" value="([^"]+)"/.exec(await res.text())![1]!;
        res = await fetch(`${ctx.url}/oauth/authorize/consent`, { method: "POST", redirect: "manual", headers: form, body: new URLSearchParams({ ticket: consent, decision: "allow" }) });
      }
    }
    const code = new URL(res.headers.get("location") ?? "http://x/").searchParams.get("code");
    if (!code) throw new Error(`${label}: no code (${res.status} ${res.headers.get("location")})`);
    const token = await fetch(`${ctx.url}/oauth/token`, {
      method: "POST",
      headers: { ...form, authorization: basic },
      body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier }),
    });
    if (!token.ok) throw new Error(`${label}: code exchange ${token.status} ${await token.text()}`);
    return { rt: ((await token.json()) as { refresh_token: string }).refresh_token };
  };

  const probe = await chain();
  const pool: Chain[] = [];
  for (let i = 0; i < POOL; i++) pool.push(await chain());
  const headers = { ...form, authorization: basic };
  return {
    method: "POST",
    path: "/oauth/token",
    headers,
    // The runner's one request by hand uses its own chain.
    body: `grant_type=refresh_token&refresh_token=${probe.rt}`,
    requests: [
      {
        method: "POST",
        path: "/oauth/token",
        headers,
        setupRequest(req: Record<string, unknown>, context: { chain?: Chain }) {
          const next = pool.pop();
          if (!next) throw new Error(`${label}: the pool of refresh-token chains ran out`);
          context.chain = next;
          return { ...req, body: `grant_type=refresh_token&refresh_token=${next.rt}` };
        },
        onResponse(status: number, body: string, context: { chain?: Chain }) {
          if (status !== 200 || !context.chain) return;
          context.chain.rt = (JSON.parse(body) as { refresh_token: string }).refresh_token;
          pool.unshift(context.chain);
          context.chain = undefined;
        },
      },
    ],
  };
}
