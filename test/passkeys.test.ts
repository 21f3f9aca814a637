// Passkeys in a real browser: headless Chromium (Debian's, through playwright-core) with the
// DevTools virtual authenticator (CDP WebAuthn.addVirtualAuthenticator: a platform authenticator
// with resident keys and user verification). A person registers a passkey from their session,
// signs in without a username through the sign-in page's passkey button (passkey.js), gets an ID
// token whose amr/acr name the passkey; a response made on another origin (a phishing page relaying
// our challenge) is refused, and so is a cloned credential whose signature counter went back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createHash, randomBytes } from "node:crypto";
import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core";
import { startToolgate, type Harness } from "./helpers/harness";
import { claimsOf, setUpSignIn, tokenRequest } from "./helpers/signin-flow";
import { browserTestsRun, launchChromium } from "./helpers/chromium";

const person = { email: "pia@example.test", password: "pia-password-1" };

let h: Harness;
let app: Awaited<ReturnType<typeof setUpSignIn>>;
let publicUrl: string;
let redirect: string;
let browserInstance: Browser;
let context: BrowserContext;
let page: Page;
let cdp: CDPSession;
let authenticatorId: string;
let phishing: Server;
let phishingUrl: string;
const logs: Record<string, unknown>[] = [];
/** The internal reasons of refused requests (logged with the request id, never sent). */
const reasons = () => logs.map((l) => l.reason).filter((r): r is string => typeof r === "string");

beforeAll(async () => {
  h = await startToolgate({ publicUrl: (port) => `http://localhost:${port}`, logs });
  publicUrl = h.config.publicUrl;
  redirect = `${publicUrl}/client-callback`;
  app = await setUpSignIn(h.url, h.adminToken, { name: "Passkey app", scopes: ["p:read"], users: [person], redirectUri: redirect });
  browserInstance = await launchChromium();
  context = await browserInstance.newContext();
  page = await context.newPage();
  cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  authenticatorId = await addAuthenticator();
  // A page on another origin with the same RP ID (localhost): what a phishing site relaying our challenge would be.
  phishing = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>Totally Toolgate</title><p>Sign in"));
  await new Promise<void>((resolve) => phishing.listen(0, "127.0.0.1", resolve));
  phishingUrl = `http://localhost:${(phishing.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  await browserInstance?.close();
  phishing?.close();
  await h?.close();
});

async function addAuthenticator(): Promise<string> {
  const r = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return r.authenticatorId;
}

function authorizeUrl(): { url: string; verifier: string } {
  const verifier = randomBytes(32).toString("base64url");
  const u = new URL(`${publicUrl}/oauth/authorize`);
  u.search = new URLSearchParams({
    response_type: "code",
    client_id: app.clientId,
    redirect_uri: redirect,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    scope: "openid p:read",
    resource: app.resource,
    nonce: "pk-nonce",
    state: "pk",
  }).toString();
  return { url: u.href, verifier };
}

/** In the page (our origin): the registration ceremony, as a registration page's script runs it. */
async function registerInPage(): Promise<{ status: number; body: Record<string, unknown> }> {
  return page.evaluate(async () => {
    const bytes = (s: string) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
    const text = (b: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(b))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    const post = (url: string, body: unknown) => fetch(url, { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const o = await (await post("/svc/webauthn/register/begin", {})).json();
    const cred = (await navigator.credentials.create({ publicKey: { ...o, challenge: bytes(o.challenge), user: { ...o.user, id: bytes(o.user.id) }, excludeCredentials: [] } })) as PublicKeyCredential;
    const r = cred.response as AuthenticatorAttestationResponse;
    const res = await post("/svc/webauthn/register/finish", {
      name: "Laptop",
      response: {
        id: cred.id,
        rawId: text(cred.rawId),
        type: cred.type,
        clientExtensionResults: cred.getClientExtensionResults(),
        response: { clientDataJSON: text(r.clientDataJSON), attestationObject: text(r.attestationObject), transports: r.getTransports() },
      },
    });
    return { status: res.status, body: await res.json() };
  });
}

describe.runIf(browserTestsRun)("passkeys in Chromium", () => {
  it("registers a passkey from a password session (user verification, a discoverable credential)", async () => {
    const { url } = authorizeUrl();
    await page.goto(url);
    await page.getByLabel("Email").fill(person.email);
    await page.getByLabel("Password").fill(person.password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL(/client-callback\?code=/);
    const registered = await registerInPage();
    expect(registered.status).toBe(201);
    expect(registered.body).toMatchObject({ name: "Laptop", device_type: "singleDevice" });
    const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.isResidentCredential).toBe(true);
    // The user handle is the internal user id, never the email.
    expect(Buffer.from(credentials[0]!.userHandle!, "base64").toString()).toBe(app.userIds[0]);
    const row = await h.db.passkeyCredential.findUnique({ where: { id: registered.body.id as string } });
    expect(row).toMatchObject({ userId: app.userIds[0], tenantId: h.workspaceId });
    // The audit trail names who registered it (from their browser session).
    const event = await h.db.auditEvent.findFirstOrThrow({ where: { action: "passkey.created", targetId: row!.id } });
    expect(event).toMatchObject({ actorType: "user", actorId: app.userIds[0], tenantId: h.workspaceId });
  });

  it("signs in without a username with the page's passkey button; the ID token says passkey", async () => {
    await context.clearCookies();
    const { url, verifier } = authorizeUrl();
    await page.goto(url);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.waitForURL(/client-callback\?code=/);
    const code = new URL(page.url()).searchParams.get("code")!;
    const tokens = await tokenRequest(h.url, app, { grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: redirect });
    expect(tokens.status).toBe(200);
    expect(claimsOf(tokens.body.id_token)).toMatchObject({ sub: app.userIds[0], amr: ["hwk", "mfa", "user"], acr: "phr", nonce: "pk-nonce" });
    const cookies = await context.cookies(publicUrl);
    expect(cookies.find((c) => c.name === "toolgate_session")).toMatchObject({ httpOnly: true, sameSite: "Lax" });
  });

  it("refuses a response made on another origin (a phishing page relaying our challenge)", async () => {
    // The phisher loads our sign-in page for its ticket and asks our server for options...
    const login = await (await fetch(authorizeUrl().url.replace(publicUrl, h.url))).text();
    const ticket = /name="ticket" value="([^"]+)"/.exec(login)![1]!.replace(/&amp;/g, "&");
    const options = await (await fetch(`${h.url}/svc/webauthn/login/begin`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ticket }) })).json();
    // ...and has the person's browser answer them on its own page (same RP ID, another origin).
    await page.goto(phishingUrl);
    const response = await page.evaluate(async (o) => {
      const bytes = (s: string) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
      const text = (b: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(b))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
      const cred = (await navigator.credentials.get({ publicKey: { ...o, challenge: bytes(o.challenge), allowCredentials: [] } })) as PublicKeyCredential;
      const r = cred.response as AuthenticatorAssertionResponse;
      return {
        id: cred.id,
        rawId: text(cred.rawId),
        type: cred.type,
        clientExtensionResults: {},
        response: { clientDataJSON: text(r.clientDataJSON), authenticatorData: text(r.authenticatorData), signature: text(r.signature), userHandle: r.userHandle ? text(r.userHandle) : undefined },
      };
    }, options);
    expect(JSON.parse(Buffer.from(response.response.clientDataJSON, "base64url").toString()).origin).toBe(phishingUrl);
    const finish = await fetch(`${h.url}/svc/webauthn/login/finish`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ticket, response }) });
    expect(finish.status).toBe(400);
    expect(await finish.json()).toEqual({ error: "the passkey could not be verified" });
    expect(finish.headers.get("set-cookie")).toBeNull();
    expect(reasons().some((r) => r.includes("Unexpected authentication response origin") && r.includes(phishingUrl))).toBe(true);
  });

  it("refuses a cloned credential whose signature counter went back", async () => {
    const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    const original = credentials[0]!;
    const stored = await h.db.passkeyCredential.findUnique({ where: { id: Buffer.from(original.credentialId, "base64").toString("base64url") } });
    const counter = Number(stored!.counter);
    expect(counter).toBeGreaterThan(0);
    // (The authenticator counted the phishing page's assertion too, which the server refused.)
    expect(original.signCount).toBeGreaterThanOrEqual(counter);
    // A copy of the key made before the last sign-in: its next signature carries the server's own count.
    await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId });
    authenticatorId = await addAuthenticator();
    await cdp.send("WebAuthn.addCredential", { authenticatorId, credential: { ...original, signCount: counter - 1 } });
    await context.clearCookies();
    await page.goto(authorizeUrl().url);
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toBe("The passkey could not be used. Try again, or use your password.");
    expect(page.url()).toContain("/oauth/authorize?");
    await expect.poll(() => reasons().some((r) => /counter value \d+ was lower than expected/.test(r))).toBe(true);
    expect(Number((await h.db.passkeyCredential.findUnique({ where: { id: stored!.id } }))!.counter)).toBe(counter);
    expect((await context.cookies(publicUrl)).find((c) => c.name === "toolgate_session")).toBeUndefined();
  });
});
