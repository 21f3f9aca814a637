// A stand-in for the organization's identity provider (Okta, Entra ID, Keycloak …) for
// docs/federation.md: a real OpenID provider (node-oidc-provider) on loopback with one confidential
// client (Toolgate) and two people. Its sign-in page accepts a person by email with ANY password:
// it is a local demo, never a real provider.
//
//   PORT=3333 REDIRECT_URI=http://localhost:8080/svc/hmgr/callback node --import tsx examples/upstream-idp/idp.ts
//
// Issuer http://127.0.0.1:$PORT, client_id "toolgate", client_secret "s3cret" (client_secret_basic),
// PKCE required, ES256 ID tokens that carry email, name and groups. Consent is granted up front.
import { createServer } from "node:http";
import { exportJWK, generateKeyPair } from "jose";
import { upstreamProviderConfig } from "./provider-config";

const port = Number(process.env.PORT ?? 3333);
const redirectUri = process.env.REDIRECT_URI;
if (!redirectUri) {
  console.error("REDIRECT_URI (Toolgate's <TOOLGATE_PUBLIC_URL>/svc/hmgr/callback) is required");
  process.exit(2);
}
const issuer = `http://127.0.0.1:${port}`;

/** The people of the organization, by email (their `sub` is the email too). */
const people: Record<string, { name: string; groups: string[] }> = {
  "ann@acme.test": { name: "Ann Example", groups: ["eng"] },
  "bob@acme.test": { name: "Bob Example", groups: ["sales"] },
};

// node-oidc-provider ships no types.
const Provider = (await import("oidc-provider")).default as any;
const { privateKey } = await generateKeyPair("ES256", { extractable: true });
const jwk = { ...(await exportJWK(privateKey)), alg: "ES256", use: "sig", kid: "demo-1" };
const provider = new Provider(
  issuer,
  upstreamProviderConfig({ jwk, clientId: "toolgate", clientSecret: "s3cret", redirectUri, claimsOf: (sub) => (people[sub] ? { email: sub, email_verified: true, ...people[sub] } : undefined) }),
);

const form = (uid: string, error = "") => `<!doctype html><title>Acme SSO</title><h1>Acme SSO</h1>${error}
<form method="post" action="/interaction/${uid}/login">
<label>Email <input name="login" type="email"></label>
<label>Password <input name="password" type="password"></label>
<button type="submit">Sign in</button>
</form>`;

// The provider's own sign-in page (GET) and its form post (POST …/login).
provider.use(async (ctx: any, next: () => Promise<void>) => {
  const m = /^\/interaction\/([\w-]+)(\/login)?$/.exec(ctx.path);
  if (!m) return next();
  const { uid } = await provider.interactionDetails(ctx.req, ctx.res);
  if (ctx.method === "GET" && !m[2]) {
    ctx.type = "html";
    ctx.body = form(uid);
    return;
  }
  if (ctx.method === "POST" && m[2]) {
    const chunks: Buffer[] = [];
    for await (const c of ctx.req) chunks.push(c as Buffer);
    const login = new URLSearchParams(Buffer.concat(chunks).toString("utf8")).get("login") ?? "";
    if (!people[login]) {
      ctx.status = 400;
      ctx.type = "html";
      ctx.body = form(uid, "<p>Unknown person.</p>");
      return;
    }
    const to = await provider.interactionResult(ctx.req, ctx.res, { login: { accountId: login, amr: ["pwd"] } }, { mergeWithLastSubmission: false });
    ctx.status = 303;
    ctx.redirect(to);
    return;
  }
  return next();
});

const server = createServer(provider.callback());
server.listen(port, "127.0.0.1", () => console.error(`upstream identity provider on ${issuer} (client toolgate)`));
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
