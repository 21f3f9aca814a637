// A user token obtained the way a user gets one: the authorization code flow with PKCE through
// Toolgate's sign-in and consent pages (kept outside scenarios/, where every file is a scenario).
import { createHash, randomBytes } from "node:crypto";
import type { BenchContext } from "./scenario";

const form = (body: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(body).toString(),
  redirect: "manual" as const,
});

function ticketOf(html: string): string {
  const m = /name="ticket" value="([^"]+)"/.exec(html);
  if (!m) throw new Error("sign-in page without a ticket");
  return m[1]!;
}

export async function userToken(
  ctx: BenchContext,
  opts: { clientId: string; clientSecret: string; redirectUri: string; resource: string; email: string; password: string; scope: string },
): Promise<string> {
  const verifier = randomBytes(32).toString("base64url");
  const authorize = new URL(`${ctx.url}/oauth/authorize`);
  authorize.search = new URLSearchParams({
    response_type: "code",
    client_id: opts.clientId,
    redirect_uri: opts.redirectUri,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state: "bench",
    scope: opts.scope,
    resource: opts.resource,
  }).toString();
  const login = await (await fetch(authorize)).text();
  const signedIn = await fetch(`${ctx.url}/oauth/authorize/login`, form({ ticket: ticketOf(login), email: opts.email, password: opts.password }));
  // A consent given before is remembered: the code comes at once.
  const done = signedIn.status === 302 ? signedIn : await fetch(`${ctx.url}/oauth/authorize/consent`, form({ ticket: ticketOf(await signedIn.text()), decision: "allow" }));
  const code = new URL(done.headers.get("location") ?? "").searchParams.get("code");
  if (!code) throw new Error(`sign-in did not return a code: ${done.status} ${done.headers.get("location")}`);
  const res = await fetch(`${ctx.url}/oauth/token`, {
    ...form({ grant_type: "authorization_code", code, redirect_uri: opts.redirectUri, code_verifier: verifier, resource: opts.resource }),
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      authorization: `Basic ${Buffer.from(`${opts.clientId}:${opts.clientSecret}`).toString("base64")}`,
    },
  });
  if (!res.ok) throw new Error(`code exchange failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}
