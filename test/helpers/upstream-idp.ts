// Upstream OpenID providers for the federation tests (docs/federation.md):
// - startOidcProvider(): a real node-oidc-provider (the one bench/peer runs) on loopback with its own
//   ES256 key, one confidential client (Toolgate) and accounts whose claims a test may change. Its
//   interaction step signs in whoever the test names next (or answers access_denied), so no HTML
//   of the provider is scraped; consent is pre-granted. restart() brings it back on the same port
//   with a NEW signing key (kid rotation).
// - startBrokenProvider(): a deliberately broken provider (plain node:http + jose) whose ID tokens
//   the test mangles one way at a time: wrong issuer, foreign audience, no nonce echo, a key it
//   does not publish, expired; and whose discovery document can lie (issuer, no S256, not JSON).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { SignJWT, exportJWK, generateKeyPair, type JWK } from "jose";
import { upstreamProviderConfig } from "../../examples/upstream-idp/provider-config";

export interface Account {
  email?: string;
  email_verified?: boolean;
  name?: string;
  groups?: string[];
}

export interface OidcProviderHandle {
  issuer: string;
  clientId: string;
  clientSecret: string;
  accounts: Map<string, Account>;
  /** Who the next upstream sign-in is (a sub of `accounts`), or "deny" for access_denied. */
  next: { sub: string } | "deny";
  kid: string;
  restart(): Promise<void>;
  close(): Promise<void>;
}

async function signingKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  return { ...(await exportJWK(privateKey)), alg: "ES256", use: "sig", kid: `k-${randomBytes(4).toString("hex")}` };
}

export async function startOidcProvider(
  redirectUri: string,
  clientAuth: { tokenEndpointAuthMethod: "client_secret_basic" } | { tokenEndpointAuthMethod: "private_key_jwt"; clientJwksUri: string } = { tokenEndpointAuthMethod: "client_secret_basic" },
): Promise<OidcProviderHandle> {
  const Provider = (await import("oidc-provider")).default as any;
  let server: Server | undefined;
  let port = 0;
  const handle: OidcProviderHandle = {
    issuer: "",
    clientId: `toolgate-${randomBytes(4).toString("hex")}`,
    clientSecret: randomBytes(24).toString("base64url"),
    accounts: new Map(),
    next: "deny",
    kid: "",
    restart: async () => {
      await handle.close();
      await listen();
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (!server) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  const listen = async () => {
    server = createServer();
    await new Promise<void>((resolve) => server!.listen(port, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
    handle.issuer = `http://127.0.0.1:${port}`;
    const jwk = await signingKey();
    handle.kid = jwk.kid!;
    // Consent is granted up front: the tests are about Toolgate's side.
    const provider = new Provider(handle.issuer, {
      ...upstreamProviderConfig({
        jwk,
        clientId: handle.clientId,
        clientSecret: handle.clientSecret,
        ...clientAuth,
        redirectUri,
        claimsOf: (sub) => {
          const a = handle.accounts.get(sub);
          return a ? { ...a } : undefined;
        },
      }),
      // node-oidc-provider refuses to fetch from loopback (its SSRF dispatcher); Toolgate's JWKS (a
      // private_key_jwt client's jwks_uri) is on loopback in the tests, so its fetch goes without it.
      fetch: (url: string, options: RequestInit & { dispatcher?: unknown }) => {
        const { dispatcher: _ssrf, ...rest } = options;
        return globalThis.fetch(url, rest);
      },
    });

    provider.use(async (ctx: any, next: () => Promise<void>) => {
      if (ctx.method === "GET" && ctx.path.startsWith("/interaction/")) {
        await provider.interactionDetails(ctx.req, ctx.res);
        const result =
          handle.next === "deny"
            ? { error: "access_denied", error_description: "the person said no" }
            : { login: { accountId: handle.next.sub, amr: ["pwd", "otp"], acr: "urn:upstream:mfa" } };
        ctx.redirect(await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: false }));
        return;
      }
      await next();
    });
    server.on("request", provider.callback());
  };
  await listen();
  return handle;
}

export type Mangle = "none" | "issuer" | "audience" | "nonce" | "unpublished_key" | "expired";

export interface BrokenProviderHandle {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** How the next ID token is broken. */
  mangle: Mangle;
  /** What the discovery document does. */
  discovery: "ok" | "wrong_issuer" | "no_s256" | "not_json" | "no_private_key_jwt";
  sub: string;
  close(): Promise<void>;
}

export async function startBrokenProvider(): Promise<BrokenProviderHandle> {
  const published = await signingKey();
  const unpublished = await signingKey();
  const codes = new Map<string, { nonce: string; clientId: string }>();
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const handle: BrokenProviderHandle = {
    issuer,
    clientId: "broken-client",
    clientSecret: "broken-secret",
    mangle: "none",
    discovery: "ok",
    sub: "broken-sub-1",
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  };
  const { importJWK } = await import("jose");
  server.on("request", async (req, res) => {
    const url = new URL(req.url!, issuer);
    const json = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (url.pathname === "/.well-known/openid-configuration") {
      if (handle.discovery === "not_json") return void res.writeHead(200, { "content-type": "text/html" }).end("<html>hello</html>");
      return json(200, {
        issuer: handle.discovery === "wrong_issuer" ? `${issuer}/other` : issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ["code"],
        ...(handle.discovery === "no_private_key_jwt" ? { token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"] } : {}),
        ...(handle.discovery === "no_s256" ? { code_challenge_methods_supported: ["plain"] } : { code_challenge_methods_supported: ["S256"] }),
      });
    }
    if (url.pathname === "/jwks") {
      const { d: _d, ...pub } = published;
      return json(200, { keys: [pub] });
    }
    if (url.pathname === "/authorize") {
      // Signs in at once and sends the browser back with a code.
      const code = randomBytes(16).toString("base64url");
      codes.set(code, { nonce: url.searchParams.get("nonce") ?? "", clientId: url.searchParams.get("client_id") ?? "" });
      const back = new URL(url.searchParams.get("redirect_uri")!);
      back.searchParams.set("code", code);
      back.searchParams.set("state", url.searchParams.get("state") ?? "");
      return void res.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === "/token" && req.method === "POST") {
      let body = "";
      for await (const chunk of req) body += chunk;
      const form = new URLSearchParams(body);
      const granted = codes.get(form.get("code") ?? "");
      if (!granted) return json(400, { error: "invalid_grant" });
      codes.delete(form.get("code")!);
      const key = handle.mangle === "unpublished_key" ? unpublished : published;
      const now = Math.floor(Date.now() / 1000);
      const idToken = await new SignJWT({
        ...(handle.mangle === "nonce" ? {} : { nonce: granted.nonce }),
        email: "broken@broken.example",
        email_verified: true,
        amr: ["pwd", "hwk"],
        acr: "urn:broken:loa2",
      })
        .setProtectedHeader({ alg: "ES256", kid: key.kid })
        .setIssuer(handle.mangle === "issuer" ? "https://evil.example" : issuer)
        .setAudience(handle.mangle === "audience" ? "someone-else" : handle.clientId)
        .setSubject(handle.sub)
        .setIssuedAt(handle.mangle === "expired" ? now - 7200 : now)
        .setExpirationTime(handle.mangle === "expired" ? now - 3600 : now + 300)
        .sign(await importJWK(key, "ES256"));
      return json(200, { access_token: "x", token_type: "Bearer", id_token: idToken, expires_in: 300 });
    }
    json(404, { error: "not found" });
  });
  return handle;
}

/**
 * A browser across origins: one cookie jar per host:port, redirects followed by hand (each hop's
 * Set-Cookie kept, as a browser does), stopping at a redirect to `stopAt` (the OAuth client's
 * redirect URI) or at the first page that is not a redirect.
 */
export function crossOriginBrowser() {
  const jars = new Map<string, Map<string, string>>();
  const jarOf = (u: URL) => jars.get(u.host) ?? jars.set(u.host, new Map()).get(u.host)!;
  const keep = (u: URL, res: Response) => {
    const jar = jarOf(u);
    for (const line of res.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const name = pair.slice(0, pair.indexOf("="));
      if (/max-age=0/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name);
      else jar.set(name, pair.slice(pair.indexOf("=") + 1));
    }
  };
  const request = async (url: URL, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    const jar = jarOf(url);
    if (jar.size) headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
    const res = await fetch(url, { ...init, headers, redirect: "manual" });
    keep(url, res);
    const location = res.headers.get("location");
    return { url, status: res.status, html: await res.text(), location: location ? new URL(location, url) : undefined, headers: res.headers };
  };
  return {
    jars,
    request,
    /** GETs `url` and follows redirects; `hops` lists every URL visited. */
    async follow(url: URL, stopAt?: string, init?: RequestInit) {
      const hops: URL[] = [];
      let page = await request(url, init);
      hops.push(url);
      for (let i = 0; i < 20 && page.location && page.status >= 300 && page.status < 400; i++) {
        if (stopAt && page.location.href.startsWith(stopAt)) break;
        hops.push(page.location);
        page = await request(page.location);
      }
      return { ...page, hops };
    },
  };
}
