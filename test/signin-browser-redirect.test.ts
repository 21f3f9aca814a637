// The sign-in pages in a real browser end at the client's redirect URI on another origin, as every
// native MCP client's loopback redirect is (RFC 8252 §7.3). A page's CSP `form-action` is checked
// against where a form submission is redirected too (CSP Level 3 §6.4.1; Chromium enforces it), so
// the consent form's 302 to the client would be blocked if the pages allowed only their own origin.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createHash, randomBytes } from "node:crypto";
import type { Browser } from "playwright-core";
import { startToolgate, type Harness } from "./helpers/harness";
import { setUpSignIn } from "./helpers/signin-flow";
import { browserTestsRun, launchChromium } from "./helpers/chromium";

const person = { email: "rhea@example.test", password: "rhea-password-1" };
let h: Harness;
let browser: Browser;
let client: Server;
let callback: string;

beforeAll(async () => {
  h = await startToolgate({ publicUrl: (port) => `http://localhost:${port}` });
  // The client's loopback listener: another origin than Toolgate's.
  client = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>Signed in</title><p>You can close this window."));
  await new Promise<void>((resolve) => client.listen(0, "127.0.0.1", resolve));
  callback = `http://127.0.0.1:${(client.address() as AddressInfo).port}/callback`;
  if (browserTestsRun) browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  client?.close();
  await h?.close();
});

describe.runIf(browserTestsRun)("the sign-in pages in Chromium", () => {
  it("sign-in and consent end at a redirect URI on another origin (nothing blocked by the page's CSP)", async () => {
    const app = await setUpSignIn(h.url, h.adminToken, { name: "Loopback app", scopes: ["l:read"], users: [person], redirectUri: callback });
    const verifier = randomBytes(32).toString("base64url");
    const u = new URL(`${h.config.publicUrl}/oauth/authorize`);
    u.search = new URLSearchParams({
      response_type: "code",
      client_id: app.clientId,
      redirect_uri: callback,
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      scope: "l:read",
      resource: app.resource,
      state: "loop",
    }).toString();
    const page = await browser.newPage();
    const violations: string[] = [];
    page.on("console", (m) => {
      if (m.text().includes("Content Security Policy")) violations.push(m.text());
    });
    await page.goto(u.href);
    await page.getByLabel("Email").fill(person.email);
    await page.getByLabel("Password").fill(person.password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL((url) => url.href.startsWith(`${callback}?`));
    const landed = new URL(page.url());
    expect(landed.searchParams.get("state")).toBe("loop");
    expect(landed.searchParams.get("code")).toMatch(/.+/);
    expect(violations).toEqual([]);
    await page.close();
  }, 60_000);
});
