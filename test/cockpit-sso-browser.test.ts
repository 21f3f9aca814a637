// "Continue with <provider>" on the cockpit's sign-in (docs/federation.md "Admin SSO") in headless
// Chromium, with a real upstream OpenID Provider (node-oidc-provider, test/helpers/upstream-idp.ts):
// the sign-in page lists the chosen workspace's providers allowed for admins (from the public
// listing), the button goes through the provider and back, the page redeems the one-time ticket and
// lands signed in. A spent ticket shows the server's message; another workspace's providers and
// providers for end users only are not offered. Axe on every state of the page.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { startToolgate, type Harness } from "./helpers/harness";
import { assertAccessible, goTo, launchBrowser, watchErrors } from "./helpers/cockpit";
import { startOidcProvider, type OidcProviderHandle } from "./helpers/upstream-idp";

const WAIT = { timeout: 20_000 };
let h: Harness;
let op: OidcProviderHandle;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let errors: string[];
/** Origins the page went to: the server's and the provider's only. */
const visited = new Set<string>();
const offsite: string[] = [];
let other: { workspaceId: string; token: string };

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } });
  op = await startOidcProvider(`${h.url}/svc/hmgr/callback`);
  const provider = (body: Record<string, unknown>, token = h.adminToken) =>
    h.request("POST", "/svc/oocmgr/providers", { token, json: { issuer: op.issuer, client_id: op.clientId, client_secret: op.clientSecret, trust_email: true, ...body } });
  expect((await provider({ name: "Acme SSO", allowed_for: ["end_users", "admins"] })).status).toBe(201);
  expect((await provider({ name: "People only", allowed_for: ["end_users"] })).status).toBe(201);
  other = await h.createWorkspace("owner@other.test");
  expect((await provider({ name: "Other SSO", allowed_for: ["admins"] }, other.token)).status).toBe(201);
  // The owner at the provider, vouched email: linked to the workspace owner at the first sign-in.
  op.accounts.set("owner-sub", { email: "owner@example.test", email_verified: true, name: "Owner" });
  op.next = { sub: "owner-sub" };

  browser = await launchBrowser();
  const allowed = new Set([new URL(h.url).origin, new URL(op.issuer).origin]);
  context = await browser.newContext();
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("data:")) return route.continue();
    const origin = new URL(url).origin;
    if (!allowed.has(origin)) {
      offsite.push(url);
      return route.abort();
    }
    return route.continue();
  });
  // Every request, redirects included (routing sees only the first of a redirect chain).
  context.on("request", (r) => visited.add(new URL(r.url()).origin));
  page = await context.newPage();
  errors = watchErrors(page);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await op?.close();
  await h?.close();
});

const continueLinks = () => page.getByRole("link", { name: /^Continue with / });

describe("Continue with an identity provider on the cockpit's sign-in", () => {
  it("offers nothing until a workspace is chosen, then only its providers allowed for admins", async () => {
    await page.goto(`${h.url}/cockpit/`);
    await page.getByRole("heading", { level: 1, name: "Sign in to Toolgate" }).waitFor();
    await page.getByText("Signing in with your organization's identity provider? Choose the workspace above.").waitFor();
    expect(await continueLinks().count()).toBe(0);

    await page.getByLabel("Workspace", { exact: true }).selectOption({ label: "Another workspace (by its id)…" });
    await page.getByLabel("Workspace id").fill(h.workspaceId);
    await expect.poll(() => continueLinks().allTextContents(), WAIT).toEqual(["Continue with Acme SSO"]);
    await assertAccessible(page, "the sign-in page with an identity provider");

    await page.getByLabel("Workspace id").fill(other.workspaceId);
    await expect.poll(() => continueLinks().allTextContents(), WAIT).toEqual(["Continue with Other SSO"]);
    // An unknown workspace looks like one without providers.
    await page.getByLabel("Workspace id").fill("3f2c1d4e-5b6a-4c7d-8e9f-0a1b2c3d4e5f");
    await expect.poll(() => page.getByText("Choose the workspace above").count(), WAIT).toBe(0);
    await expect.poll(() => continueLinks().count(), WAIT).toBe(0);
  }, 90_000);

  it("signs in through the provider and lands in the cockpit, the ticket spent", async () => {
    // A link to the sign-in with the workspace chosen (?workspace=), as an admin would bookmark it.
    await page.goto(`${h.url}/cockpit/signin?workspace=${h.workspaceId}`);
    await continueLinks().first().waitFor(WAIT);
    const tickets: string[] = [];
    page.on("request", (r) => {
      const t = new URL(r.url()).searchParams.get("sso_ticket");
      if (t) tickets.push(t);
    });
    await page.getByRole("link", { name: "Continue with Acme SSO" }).click();
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent(), WAIT).toBe("Applications");
    expect(new URL(page.url()).pathname).toBe("/cockpit/applications");
    expect(page.url()).not.toContain("sso_ticket");
    // It went through the provider, and the server's ticket was redeemed (single use: spent now).
    expect(visited).toContain(new URL(op.issuer).origin);
    expect(tickets).toHaveLength(1);
    const again = await h.request("POST", "/svc/uflow/auth/sso", { json: { ticket: tickets[0] } });
    expect(again.status).toBe(401);
    // Signed in as the owner of that workspace: its settings and its providers are readable.
    await goTo(page, "Settings");
    await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Identity providers" }).click();
    await expect.poll(() => page.getByRole("table", { name: "Identity providers" }).textContent(), WAIT).toContain("People only");
    await assertAccessible(page, "the cockpit after single sign-on");
    // The link was recorded as the provider's sign-in.
    const link = await h.db.federatedIdentity.findFirst({ where: { subject: "owner-sub" } });
    expect(link?.userId).toBe(h.ownerId);

    // A ticket already spent (or forged) shows the server's message on the sign-in page.
    await page.goto(`${h.url}/cockpit/?sso_ticket=${encodeURIComponent(tickets[0]!)}`);
    const alert = page.getByRole("alert").filter({ hasText: "Could not sign in with the identity provider" });
    await expect.poll(() => alert.textContent(), WAIT).toContain(again.body.error);
    await assertAccessible(page, "the sign-in page with a spent ticket");
  }, 90_000);

  it("ran without browser errors (but the spent ticket's 401) and without other origins", () => {
    const provoked = /status of 401 .*\/svc\/uflow\/auth\/sso\)$/;
    expect(errors.filter((e) => !provoked.test(e))).toEqual([]);
    expect(offsite).toEqual([]);
  });
});
