// Screenshots of the cockpit's main screens for docs/cockpit.md (`npm run cockpit:screenshots`):
// a throwaway Toolgate (the tests' harness: its own SQLite database, or TEST_DATABASE_URL's
// server) seeded through its APIs with the sample MCP server from examples/ (scanned, mapped,
// launched), a second application, users, roles, a group, clients, a webhook and a refused sign-in;
// then headless Chromium (/usr/bin/chromium via playwright-core) signs in through the cockpit and
// writes one PNG per screen to docs/cockpit/ (1280×860, one device pixel per CSS pixel, so the
// files stay small). Needs `npm run build` first (the cockpit in dist/cockpit/).
import { existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Page } from "playwright-core";
import { ADMIN_EMAIL, ADMIN_PASSWORD, startToolgate, type Harness } from "../test/helpers/harness";
import { CHROMIUM, CHROMIUM_ARGS } from "../test/helpers/chromium";
import { startSampleServer } from "../examples/sample-mcp-server/server";
import { seedIdentity, shootIdentity } from "./cockpit-screenshots-identity";
import {
  ActivateApplicationDocument,
  AddGroupMemberDocument,
  ApplicationDocument,
  CreateGroupBindingDocument,
  CreateGroupDocument,
  CreateRoleDocument,
  PreRegisterClientDocument,
  RegisterApplicationDocument,
  RescanApplicationDocument,
  SetAccessPolicyDocument,
  SetToolPublicDocument,
  SetToolScopesDocument,
} from "../cockpit/src/graphql/generated/graphql";

const OUT = join(import.meta.dirname, "..", "docs", "cockpit");

async function graph<T = any>(h: Harness, document: { toString(): string }, variables: Record<string, unknown>): Promise<T> {
  const res = await fetch(`${h.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${h.adminToken}` },
    body: JSON.stringify({ query: document.toString(), variables }),
  });
  const body = (await res.json()) as { data?: T; errors?: { message: string }[] };
  if (body.errors?.length) throw new Error(`${document.toString().split("(")[0]}: ${body.errors.map((e) => e.message).join("; ")}`);
  return body.data!;
}

async function rest(h: Harness, method: string, path: string, json: unknown): Promise<any> {
  const r = await h.admin(method, path, json);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.body;
}

async function seed(h: Harness, sampleUrl: string): Promise<{ rsId: string; userId: string }> {
  const reg = await graph(h, RegisterApplicationDocument, { input: { name: "Sample notes", publicBaseUrl: sampleUrl, protectedBasePath: "/mcp", scopesSupported: ["notes:read", "notes:write"] } });
  const rsId: string = reg.registerResourceServer.resourceServer.id;
  await graph(h, RegisterApplicationDocument, { input: { name: "CRM tools", publicBaseUrl: "https://crm.example.test", protectedBasePath: "/mcp", scopesSupported: ["crm:read"] } });
  await graph(h, RescanApplicationDocument, { id: rsId });
  const app = await graph(h, ApplicationDocument, { id: rsId });
  const tools: string[] = app.resourceServer.tools.map((t: { name: string }) => t.name);
  const clock = app.resourceServer.tools.find((t: { name: string }) => t.name === "server_time");
  if (clock) await graph(h, SetToolPublicDocument, { id: rsId, toolId: clock.id, isPublic: true, confirm: "server_time" });
  const scopeOf = (tool: string) => (/list|read/.test(tool) ? ["notes:read"] : /create|delete/.test(tool) ? ["notes:write"] : []);
  await graph(h, SetToolScopesDocument, { id: rsId, mappings: tools.filter((t) => scopeOf(t).length).map((toolName) => ({ toolName, scopeIds: scopeOf(toolName) })) });
  const reader = await graph(h, CreateRoleDocument, { input: { name: "Note reader", grants: [{ resourceServerId: rsId, scopeIds: ["notes:read"] }] } });
  await graph(h, CreateRoleDocument, { input: { name: "Note editor", grants: [{ resourceServerId: rsId, scopeIds: ["notes:read", "notes:write"] }] } });
  await graph(h, SetAccessPolicyDocument, { id: rsId, input: { enabled: true, defaultRoleId: reader.createRole.id } });
  await graph(h, ActivateApplicationDocument, { id: rsId });
  const users: string[] = [];
  for (const [email, username] of [["rita@example.test", "rita"], ["sam@example.test", "sam"]] as const) {
    users.push((await rest(h, "POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email, username, password: `${username}-password-1` })).id);
  }
  const group = await graph(h, CreateGroupDocument, { input: { name: "Support", description: "Reads notes for customers" } });
  for (const userId of users) await graph(h, AddGroupMemberDocument, { groupId: group.createGroup.id, userId });
  await graph(h, CreateGroupBindingDocument, { groupId: group.createGroup.id, input: { roleId: reader.createRole.id, tenantId: h.workspaceId, scopeType: "resource_server", scopeId: rsId } });
  await graph(h, PreRegisterClientDocument, {
    rs: rsId,
    input: { clientName: "Notes agent", kind: "agent", redirectUris: ["http://127.0.0.1:4999/callback"], allowedScopes: ["notes:read", "notes:write"], tokenEndpointAuthMethod: "none" },
  });
  await graph(h, PreRegisterClientDocument, { rs: rsId, input: { clientName: "Nightly export", kind: "m2m", redirectUris: [], allowedScopes: ["notes:read"] } });
  await rest(h, "POST", "/svc/exsvc/webhooks", { url: "http://127.0.0.1:9/toolgate-events", event_types: ["role.*", "role_binding.*"], description: "Access changes to the SIEM" });
  await h.request("POST", "/svc/uflow/auth/login", { json: { email: ADMIN_EMAIL, password: "a wrong password" } });
  return { rsId, userId: users[0]! };
}

/** Waits until the screen has its heading and nothing is loading, then writes the PNG. */
async function shoot(page: Page, name: string, heading: string, opts: { fullPage?: boolean } = {}): Promise<void> {
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
  await page.waitForFunction(() => !/Loading .*…/.test(document.querySelector("main")?.textContent ?? ""));
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const path = join(OUT, `${name}.png`);
  await page.screenshot({ path, type: "png", fullPage: opts.fullPage ?? false });
  console.log(`${path}: ${(statSync(path).size / 1024).toFixed(0)} kB`);
}

async function main() {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (apt-get install chromium)`);
  mkdirSync(OUT, { recursive: true });
  const sample = await startSampleServer();
  const h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1", TOOLGATE_WEBHOOK_ALLOW_PRIVATE: "1", TOOLGATE_METRICS_TOKEN: "screenshots-only-metrics-token-0123456789abcdef" } });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const { rsId, userId } = await seed(h, sample.url);
    const op = await seedIdentity(h, rsId);
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 860 }, deviceScaleFactor: 1, colorScheme: "light" })).newPage();
    await page.goto(`${h.url}/cockpit/`);
    await page.getByLabel("Email", { exact: true }).fill(ADMIN_EMAIL);
    await shoot(page, "01-sign-in", "Sign in to Toolgate");
    await page.getByLabel("Password", { exact: true }).fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await shoot(page, "02-applications", "Applications");
    const nav = (name: string) => page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name }).click();
    await page.getByRole("link", { name: "Sample notes" }).first().click();
    await page.getByRole("table", { name: "Scope matrix of Sample notes" }).waitFor();
    await shoot(page, "03-application", "Sample notes");
    await nav("Clients and connections");
    await shoot(page, "04-clients", "Clients and connections");
    await nav("People and access");
    await shoot(page, "05-people", "People and access");
    await page.getByRole("link", { name: "Groups" }).click();
    await page.getByRole("heading", { level: 2, name: /Support/ }).first().waitFor();
    await shoot(page, "06-people-groups", "People and access");
    await page.getByRole("link", { name: "Members" }).click();
    await page.locator(`a[href$="/people/users/${userId}"]`).first().click();
    await shoot(page, "07-user-access", "Access of rita@example.test");
    await nav("Audit trail");
    await shoot(page, "08-audit-trail", "Audit trail");
    await nav("Settings");
    await shoot(page, "09-settings", "Settings");
    await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("table", { name: "Webhook endpoints" }).getByText("127.0.0.1:9").first().waitFor();
    await shoot(page, "10-settings-webhooks", "Settings");
    // Explain: rita may not call create_note; the trace, and the safest fix previewed.
    await nav("Explain");
    await page.getByLabel("Application").selectOption({ label: "Sample notes" });
    await page.getByLabel("User").selectOption({ label: "rita@example.test" });
    await page.getByLabel("Tool").selectOption({ label: "create_note" });
    await page.getByLabel("Client (optional)").selectOption({ label: "Notes agent (approved)" });
    await page.getByRole("button", { name: "Run the simulation" }).click();
    await page.getByRole("button", { name: "Preview this fix" }).click();
    await page.getByRole("status").filter({ hasText: "would give" }).first().waitFor();
    await shoot(page, "11-explain", "Explain", { fullPage: true });
    // Evidence exports on the application page: two, the newest verified in the browser.
    await nav("Applications");
    await page.getByRole("link", { name: "Sample notes" }).first().click();
    const evidence = page.getByRole("region", { name: "Evidence exports" });
    for (const n of [1, 2]) {
      await evidence.getByRole("button", { name: "Create an evidence export" }).click();
      await evidence.getByRole("listitem", { name: `Export ${n}` }).waitFor();
    }
    await evidence.getByRole("button", { name: "Verify export 2" }).click();
    await page.getByRole("status", { name: "Verification of export 2" }).getByText("Verified").waitFor();
    await evidence.scrollIntoViewIfNeeded();
    await page.locator("#evidence").evaluate((e) => e.scrollIntoView({ block: "end" }));
    await shoot(page, "12-evidence", "Sample notes");
    await nav("Settings");
    await shootIdentity(browser, page, h, shoot);
    await op.close();
  } finally {
    await browser.close();
    await h.close();
    await sample.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
