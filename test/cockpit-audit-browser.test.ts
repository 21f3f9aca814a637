// The cockpit's audit trail and webhooks in a real browser (headless Chromium) against a real
// Toolgate on a real database, with axe on every screen and dialog, and nothing fetched from any
// origin but the server's (the browser context refuses and records every other request).
// - Audit trail: the page is the REST list's page (same events, same order); filters by action
//   family, outcome and time range, driven from the keyboard; Older / Newer walk the pages by
//   cursor; a bad filter shows the server's message under its field.
// - Settings → Webhooks: add one (secret shown once, copied to the clipboard, and it verifies the
//   signatures of what the endpoint receives), send a test, read its deliveries, disable and delete
//   with confirmations saying what they affect.
// - A read-only auditor reads both, with no control that writes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { startToolgate, type Harness } from "./helpers/harness";
import { assertAccessible, goTo, launchBrowser, signIn, watchErrors } from "./helpers/cockpit";
import { startWebhookReceiver, type WebhookReceiver } from "./helpers/webhook-receiver";
import { eventually } from "./helpers/eventually";

let h: Harness;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let errors: string[];
let receiver: WebhookReceiver;
/** Requests the page tried to send anywhere but the server (refused): must stay empty. */
const offsite: string[] = [];
const ROLES = 30;
/** How long a poll waits (a loaded machine and PostgreSQL: a sign-in alone can take seconds). */
const WAIT = { timeout: 20_000 };

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_WEBHOOK_ALLOW_PRIVATE: "1", TOOLGATE_WEBHOOK_RETRY_BASE_MS: "200", TOOLGATE_WEBHOOK_RETRY_MAX_MS: "400" } });
  receiver = await startWebhookReceiver();
  browser = await launchBrowser();
  const origin = new URL(h.url).origin;
  context = await browser.newContext({ permissions: ["clipboard-read", "clipboard-write"] });
  // Works with no network beyond the server: anything else is refused and recorded.
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("data:") || new URL(url).origin === origin) return route.continue();
    offsite.push(url);
    return route.abort();
  });
  page = await context.newPage();
  errors = watchErrors(page);
  // Audit events to page through: roles created through the API, and one refused sign-in.
  for (let i = 0; i < ROLES; i++) {
    const r = await h.admin("POST", "/svc/authmgr/roles", { name: `Audited role ${String(i).padStart(2, "0")}`, grants: [] });
    expect(r.status, r.text).toBe(201);
  }
  const refused = await h.request("POST", "/svc/uflow/auth/login", { json: { email: "owner@example.test", password: "not the password" } });
  expect(refused.status).toBe(401);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await h?.close();
});

const dialog = () => page.getByRole("dialog");
const caption = () => page.locator("main table caption").first().textContent();
/** The event numbers ("Event 12") of the rows shown, top to bottom. */
const shownSeqs = async () => (await page.locator("main table tbody summary").allTextContents()).map((t) => Number(/Event (\d+)/.exec(t)![1]));

async function restSeqs(query: string): Promise<number[]> {
  const r = await h.admin("GET", `/svc/v1/workspaces/${h.workspaceId}/audit-events?${query}`);
  expect(r.status, r.text).toBe(200);
  return r.body.items.map((e: { seq: number }) => e.seq);
}

describe("the audit trail in Chromium", () => {
  it("lists the workspace's events newest first, as the API does, one page at a time", async () => {
    await signIn(page, h);
    await goTo(page, "Audit trail");
    await expect.poll(shownSeqs, WAIT).toEqual(await restSeqs("limit=25"));
    expect(await caption()).toBe("Audit events 1–25");
    await assertAccessible(page, "the audit trail");
    await expect.poll(() => page.locator("main table tbody tr").first().textContent(), WAIT).toContain("signin.succeeded");
  }, 90_000);

  it("filters by an action family from the keyboard and pages with Older / Newer", async () => {
    // Keyboard only: focus the first filter, type, Enter submits the filter form.
    await page.getByLabel("Action").focus();
    await page.keyboard.type("role.*");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.url(), WAIT).toContain("action=role.*");
    const expected = await restSeqs("action=role.*&limit=100");
    expect(expected).toHaveLength(ROLES);
    await expect.poll(shownSeqs, WAIT).toEqual(expected.slice(0, 25));
    expect(await caption()).toBe("Audit events 1–25");
    const actions = await page.locator("main table tbody th code").allTextContents();
    expect(new Set(actions)).toEqual(new Set(["role.created"]));

    const newer = page.getByRole("button", { name: "Newer events" });
    const older = page.getByRole("button", { name: "Older events" });
    expect(await newer.isDisabled()).toBe(true);
    await older.focus();
    await page.keyboard.press("Enter");
    await expect.poll(shownSeqs, WAIT).toEqual(expected.slice(25));
    expect(await caption()).toBe(`Audit events 26–${ROLES}`);
    expect(await older.isDisabled()).toBe(true);
    await assertAccessible(page, "the audit trail, second page");
    await newer.focus();
    await page.keyboard.press("Space");
    await expect.poll(shownSeqs, WAIT).toEqual(expected.slice(0, 25));
    expect(await caption()).toBe("Audit events 1–25");

    // A row's details open from the keyboard: what changed, as JSON.
    const first = page.locator("main table tbody summary").first();
    await first.focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("main table tbody details[open] pre").first().textContent(), WAIT).toContain("Audited role 29");
    await assertAccessible(page, "an audit event's details");
  }, 90_000);

  it("filters by outcome and by time range, and shows a bad filter's message under it", async () => {
    await page.getByLabel("Action").fill("");
    await page.getByLabel("Outcome").selectOption("failure");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(() => page.url(), WAIT).toContain("outcome=failure");
    const failures = await restSeqs("outcome=failure");
    expect(failures.length).toBeGreaterThan(0);
    await expect.poll(shownSeqs, WAIT).toEqual(failures);
    expect(new Set(await page.locator("main table tbody th code").allTextContents())).toEqual(new Set(["signin.failed"]));

    // Until a moment long past: nothing.
    await page.getByLabel("Until").fill("2001-01-01T00:00");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await expect.poll(() => page.locator("main table tbody").textContent(), WAIT).toBe("No event matches these filters.");
    await page.getByRole("button", { name: "Clear filters" }).click();
    await expect.poll(shownSeqs, WAIT).toEqual(await restSeqs("limit=25"));

    await page.getByLabel("Action").fill("Not an action!");
    await page.getByRole("button", { name: "Apply filters" }).click();
    const under = page.locator("#action-error");
    await expect.poll(() => under.textContent(), WAIT).toMatch(/must be an action such as role_binding\.created/);
    expect(await page.getByLabel("Action").getAttribute("aria-invalid")).toBe("true");
    await page.getByRole("alert").first().waitFor();
    await assertAccessible(page, "the audit trail with a refused filter");
  }, 90_000);
});

describe("Settings → Webhooks in Chromium", () => {
  it("adds a webhook whose secret is shown once and verifies what the endpoint receives", async () => {
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Settings" }).click();
    await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("heading", { level: 2, name: "Webhooks" }).waitFor();
    await expect.poll(() => page.getByRole("table", { name: "Webhook endpoints" }).textContent(), WAIT).toContain("No webhook yet.");
    await assertAccessible(page, "Settings: webhooks (empty)");

    await page.getByRole("button", { name: "Add a webhook" }).click();
    await expect.poll(() => page.url(), WAIT).toContain("action=create-webhook");
    await assertAccessible(page, "the add-webhook dialog");
    await dialog().getByLabel("Endpoint URL").fill(receiver.url);
    await dialog().getByLabel("Event types").fill("role.*");
    await dialog().getByLabel("Description (optional)").fill("Role changes to the SIEM");
    await dialog().getByRole("button", { name: "Add webhook" }).click();
    await expect.poll(() => dialog().getByRole("heading", { level: 2 }).textContent(), WAIT).toBe("Webhook added");
    const secret = (await dialog().getByTestId("secret").textContent())!;
    expect(secret).toMatch(/^whsec_/);
    await dialog().getByRole("button", { name: "Copy signing secret" }).click();
    await dialog().getByRole("status").filter({ hasText: "Copied." }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await assertAccessible(page, "the webhook's secret shown once");
    await dialog().getByRole("button", { name: "Done" }).click();
    // Shown once: the list and the API never show it again.
    const table = page.getByRole("table", { name: "Webhook endpoints" });
    await expect.poll(() => table.textContent(), WAIT).toContain(receiver.url);
    expect(await page.locator("main").textContent()).not.toContain(secret);
    expect(JSON.stringify((await h.admin("GET", "/svc/exsvc/webhooks")).body)).not.toContain(secret);

    // The secret the cockpit showed verifies the signatures of what is delivered.
    receiver.secret = secret;
    await page.getByRole("button", { name: `Send a test to ${receiver.url}` }).click();
    await page.getByRole("status").filter({ hasText: `Test message queued for ${receiver.url}.` }).waitFor();
    await eventually(async () => receiver.ofType("webhook.test").length === 1, "webhook.test delivered", 10_000);
    expect(await h.admin("POST", "/svc/authmgr/roles", { name: "Role after the webhook", grants: [] }).then((r) => r.status)).toBe(201);
    await eventually(async () => receiver.ofType("role.created").length === 1, "role.created delivered", 10_000);
    expect(receiver.received.every((r) => r.verified)).toBe(true);

    await page.getByRole("button", { name: `Deliveries of ${receiver.url}` }).click();
    const deliveries = dialog().getByRole("table", { name: "The 10 newest deliveries" });
    await expect
      .poll(async () => {
        await dialog().getByRole("button", { name: "Refresh deliveries" }).click();
        return deliveries.textContent();
      })
      .toMatch(/role\.createddelivered.*webhook\.testdelivered/);
    await assertAccessible(page, "a webhook's deliveries");
    await dialog().getByRole("button", { name: "Close" }).click();
  }, 90_000);

  it("disables and deletes a webhook after confirmations saying what they affect", async () => {
    const table = page.getByRole("table", { name: "Webhook endpoints" });
    await page.getByRole("button", { name: `Disable ${receiver.url}` }).click();
    await expect.poll(() => dialog().textContent(), WAIT).toMatch(/stops posting to it: events of role\.\* .* are not queued for it/);
    await assertAccessible(page, "the disable confirmation");
    await dialog().getByRole("button", { name: "Disable webhook" }).click();
    await page.getByRole("status").filter({ hasText: `${receiver.url} is disabled.` }).waitFor();
    await expect.poll(() => table.getByRole("row", { name: new RegExp(receiver.url) }).textContent(), WAIT).toContain("disabled");
    expect((await h.admin("GET", "/svc/exsvc/webhooks")).body.items[0].status).toBe("disabled");

    await page.getByRole("button", { name: `Delete ${receiver.url}` }).click();
    await expect.poll(() => dialog().textContent(), WAIT).toMatch(/pending deliveries are dropped unsent and its delivery history and signing secret are deleted/);
    await assertAccessible(page, "the delete confirmation");
    await dialog().getByRole("button", { name: "Delete webhook" }).click();
    await page.getByRole("status").filter({ hasText: `${receiver.url} is deleted.` }).waitFor();
    await expect.poll(() => table.textContent(), WAIT).toContain("No webhook yet.");
    expect((await h.admin("GET", "/svc/exsvc/webhooks")).body.items).toEqual([]);
  }, 90_000);

  it("shows a read-only auditor the trail and the webhooks, with no control that writes", async () => {
    const auditor = { email: "audra@example.test", password: "audra-password-1" };
    const u = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: auditor.email, username: "audra", password: auditor.password });
    expect(u.status, u.text).toBe(201);
    const m = await h.admin("PATCH", `/uflow/v2/tenants/${h.workspaceId}/memberships/${u.body.id}`, { membership_type: "readonly_auditor" });
    expect(m.status, m.text).toBe(200);
    expect((await h.admin("POST", "/svc/exsvc/webhooks", { url: receiver.url, event_types: ["*"] })).status).toBe(201);

    await page.getByRole("button", { name: "Sign out" }).click();
    await signIn(page, h, auditor);
    await goTo(page, "Audit trail");
    await expect.poll(shownSeqs, WAIT).toEqual(await restSeqs("limit=25"));
    await assertAccessible(page, "the audit trail of a read-only auditor");
    await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Settings" }).click();
    await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Webhooks" }).click();
    const table = page.getByRole("table", { name: "Webhook endpoints" });
    await expect.poll(() => table.textContent(), WAIT).toContain(receiver.url);
    expect(await page.getByRole("button", { name: "Add a webhook" }).count()).toBe(0);
    expect(await table.getByRole("button").allTextContents()).toEqual(["Deliveries of " + receiver.url]);
    await assertAccessible(page, "Settings: webhooks of a read-only auditor");
  }, 90_000);

  it("fetched nothing from any other origin, and the browser logged no error", () => {
    expect(offsite).toEqual([]);
    expect(errors).toEqual([]);
  }, 90_000);
});
