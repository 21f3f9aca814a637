// Issue 24's "first hour", end to end in headless Chromium against a real Toolgate on a real
// database: sign in, register the sample MCP server, scan, map tools, activate, create a client,
// connect with the official MCP client, see the connection; then a call the MCP server really
// denies (403 insufficient_scope), explained on the Explain screen (the decision trace, the failed
// condition), the safest fix previewed ("this would give 1 user 2 tools") and applied from the
// browser, after which the same call through the same MCP client succeeds. Then an evidence export
// created, downloaded and verified on the application page (and a tampered file named). axe on
// each state of the Explain screen, its confirmation and the evidence panel (test/cockpit-browser
// checks the other screens).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { readFile } from "node:fs/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2, UnauthorizedError as UnauthorizedErrorV2, type OAuthClientProvider as ProviderV2 } from "@modelcontextprotocol/client";
import { startToolgate, type Harness } from "./helpers/harness";
import { assertAccessible, goTo, launchBrowser, signIn, watchErrors } from "./helpers/cockpit";
import { SignInProvider } from "./helpers/sdk-oauth-provider";
import { startSampleServer, type SampleServer } from "../examples/sample-mcp-server/server";

let h: Harness;
let browser: Browser;
let page: Page;
let errors: string[];
let sample: SampleServer;
const reader = { email: "rosa@example.test", username: "rosa", password: "rosa-password-1" };

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } });
  browser = await launchBrowser();
  page = await (await browser.newContext({ acceptDownloads: true })).newPage();
  errors = watchErrors(page);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await sample?.close();
  await h?.close();
});

const dialog = () => page.getByRole("dialog");
const status = (text: string | RegExp) => page.getByRole("status").filter({ hasText: text });
const heading = () => page.getByRole("heading", { level: 1 }).textContent();

/** A tools/call straight to the MCP server with this token: what the server itself answers. */
async function rawCall(mcpUrl: string, token: string, tool: string) {
  const res = await fetch(mcpUrl, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool, arguments: { title: "raw", body: "raw" } } }),
  });
  await res.body?.cancel();
  return { status: res.status, challenge: res.headers.get("www-authenticate") ?? "" };
}

const text = (r: any) => (r.content as { text: string }[])[0]!.text;

describe("a newcomer's first hour in the cockpit", () => {
  let rsId = "";
  let clientId = "";
  let provider: SignInProvider;
  let mcpUrl: URL;

  /** create_note through the official v2 client with the user's tokens; its text when it succeeds. */
  async function callCreateNote(): Promise<string> {
    const c = new ClientV2({ name: "newcomer", version: "1.0.0" });
    await c.connect(new TransportV2(mcpUrl, { authProvider: provider as unknown as ProviderV2 }));
    try {
      return text(await c.callTool({ name: "create_note", arguments: { title: "first", body: "b" } }));
    } finally {
      await c.close();
    }
  }
  /** The sign-in the client asked for was driven by the provider; the client redeems its code (v2 checks iss, RFC 9207). */
  async function finishSignIn(): Promise<void> {
    await new TransportV2(mcpUrl, { authProvider: provider as unknown as ProviderV2 }).finishAuth(provider.callback!.searchParams);
  }

  it("signs in, registers, scans, maps, activates, creates a client and sees the MCP client connect", async () => {
    sample = await startSampleServer();
    const port = Number(new URL(sample.url).port);

    await signIn(page, h);
    await expect.poll(heading).toBe("Applications");
    await page.getByRole("button", { name: "Register an MCP server" }).click();
    await dialog().getByLabel("Name").fill("Sample notes");
    await dialog().getByLabel("Public base URL").fill(sample.url);
    await dialog().getByLabel("Scopes (optional)").fill("notes:read notes:write");
    await dialog().getByRole("button", { name: "Register" }).click();
    await expect.poll(() => dialog().getByRole("heading", { level: 2 }).textContent()).toBe("Sample notes registered");
    const secret = (await dialog().getByTestId("secret").textContent())!;
    await dialog().getByRole("link", { name: "Open Sample notes" }).click();

    await expect.poll(heading).toBe("Sample notes");
    await page.getByRole("button", { name: "Scan now" }).click();
    await status(/Scan finished/).first().waitFor({ timeout: 10_000 });
    await expect.poll(() => page.getByRole("table", { name: "Scope matrix of Sample notes" }).textContent()).toContain("create_note");
    for (const [tool, scope] of [["list_notes", "notes:read"], ["read_note", "notes:read"], ["create_note", "notes:write"], ["delete_note", "notes:write"]]) {
      await page.getByRole("checkbox", { name: `${scope} for ${tool}` }).check();
    }
    await page.getByRole("button", { name: "Save mapping" }).click();
    await status("Mapping saved.").first().waitFor();
    await page.getByRole("button", { name: "Make server_time public" }).click();
    await dialog().getByLabel("Type server_time to confirm").fill("server_time");
    await dialog().getByRole("button", { name: "Make server_time public" }).click();
    await status("server_time is public.").first().waitFor();

    // Two roles: first-time users read (the access policy's default role); writers are bound by hand.
    await goTo(page, "People and access");
    await page.getByRole("link", { name: "Roles" }).click();
    for (const [name, scope] of [["Note reader", "notes:read"], ["Note writer", "notes:write"]]) {
      await page.getByLabel("Role name").fill(name);
      await page.getByRole("checkbox", { name: scope }).check();
      await page.getByRole("button", { name: "Create role" }).click();
      await expect.poll(() => page.getByRole("table", { name: "Roles" }).getByRole("row", { name: new RegExp(name) }).textContent()).toContain(`Sample notes: ${scope}`);
    }

    await goTo(page, "Applications");
    await page.getByRole("link", { name: "Sample notes" }).click();
    await page.getByLabel("Default role").selectOption({ label: "Note reader" });
    await page.getByRole("button", { name: "Save access policy" }).click();
    await status("Access policy saved.").first().waitFor();
    await page.getByRole("button", { name: "Activate", exact: true }).click();
    await dialog().getByRole("button", { name: "Activate" }).click();
    await status("Sample notes is launched.").first().waitFor();
    rsId = page.url().split("/applications/")[1]!.split(/[#?]/)[0]!;

    // The sample goes behind Toolgate with the secret the cockpit showed.
    await sample.close();
    sample = await startSampleServer({ port, toolgate: { issuer: h.config.publicUrl, resourceServerId: rsId, introspectionSecret: secret } });
    mcpUrl = new URL(`${sample.url}/mcp`);

    await goTo(page, "People and access");
    await page.getByRole("button", { name: "Add a user" }).click();
    await dialog().getByLabel("Email", { exact: true }).fill(reader.email);
    await dialog().getByLabel("Username").fill(reader.username);
    await dialog().getByLabel("Password (optional)").fill(reader.password);
    await dialog().getByRole("button", { name: "Add user" }).click();
    await expect.poll(() => page.getByRole("table", { name: "Members of the workspace" }).textContent()).toContain(reader.email);

    await goTo(page, "Clients and connections");
    await page.getByRole("button", { name: "Register a client" }).click();
    await dialog().getByLabel("Client name").fill("Notes agent");
    await dialog().getByLabel("Client type").selectOption("agent");
    const redirect = "http://127.0.0.1:4999/callback";
    await dialog().getByLabel("Redirect URIs").fill(redirect);
    await dialog().getByLabel("Public client (no secret; PKCE only)").check();
    await dialog().getByRole("checkbox", { name: "notes:read" }).check();
    await dialog().getByRole("checkbox", { name: "notes:write" }).check();
    await dialog().getByRole("button", { name: "Register client" }).click();
    clientId = (await dialog().getByTestId("client-id").textContent())!;
    expect(clientId).toMatch(/^tgc_/);
    await dialog().getByRole("button", { name: "Close" }).click();

    // The official MCP client (v1 SDK) connects with that client id; the user signs in.
    provider = new SignInProvider({ publicUrl: h.config.publicUrl, serverUrl: h.url, user: reader, redirectUrl: redirect, preRegistered: { client_id: clientId } });
    await expect(new Client({ name: "newcomer", version: "1.0.0" }).connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }))).rejects.toBeInstanceOf(UnauthorizedError);
    await new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }).finishAuth(provider.callback!.searchParams.get("code")!);
    const mcp = new Client({ name: "newcomer", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    expect((await mcp.listTools()).tools.map((t) => t.name).sort()).toEqual(["list_notes", "read_note", "server_time"]);
    expect(text(await mcp.callTool({ name: "list_notes", arguments: {} }))).toMatch(/^welcome/);
    await mcp.close();

    await h.services.oauth.lastUsed.flush();
    await goTo(page, "Applications");
    await goTo(page, "Clients and connections");
    await page.getByRole("table", { name: "Pre-registered clients of Sample notes" }).getByRole("row", { name: /Notes agent/ }).locator("time").first().waitFor();
  }, 180_000);

  it("a denied call is explained, its safest fix previewed and applied in the browser, and the same call then succeeds", async () => {
    // Denied at the MCP server itself: the token carries notes:read, create_note needs notes:write.
    const token = (provider.tokens() as { access_token: string }).access_token;
    const denied = await rawCall(mcpUrl.href, token, "create_note");
    expect(denied.status).toBe(403);
    expect(denied.challenge).toContain('error="insufficient_scope"');
    // Through the MCP client too. The client holds a refresh token, so the v2 client is the one that
    // steps up on 403 (it re-authorizes with the union of scopes; v1 would refresh, keeping the scope):
    // the user signs in again, and still cannot have notes:write.
    const signIns = provider.authorizations;
    await expect(callCreateNote()).rejects.toBeInstanceOf(UnauthorizedErrorV2);
    expect(provider.authorizations).toBe(signIns + 1);
    await finishSignIn();
    const afterStepUpAttempt = (provider.tokens() as { access_token: string }).access_token;
    expect(afterStepUpAttempt).not.toBe(token);
    expect((await rawCall(mcpUrl.href, afterStepUpAttempt, "create_note")).status).toBe(403);
    await expect(callCreateNote()).rejects.toBeInstanceOf(UnauthorizedErrorV2);

    // Explain: the same question in the cockpit.
    await goTo(page, "Explain");
    await expect.poll(heading).toBe("Explain");
    await assertAccessible(page, "Explain (empty)");
    await page.getByLabel("Application").selectOption({ label: "Sample notes" });
    await page.getByLabel("User").selectOption({ label: reader.email });
    await page.getByLabel("Tool").selectOption({ label: "create_note" });
    await page.getByLabel("Client (optional)").selectOption(clientId);
    await page.getByRole("button", { name: "Run the simulation" }).click();
    await expect.poll(() => page.getByRole("heading", { level: 2, name: /create_note for/ }).textContent()).toBe(`create_note for ${reader.email}: Denied`);
    const trace = page.getByRole("list", { name: "Decision trace" });
    const steps = await trace.getByRole("listitem").allTextContents();
    expect(steps).toHaveLength(10);
    expect(steps[0]).toContain("OK");
    const blocked = trace.locator('[aria-current="step"]');
    await expect.poll(() => blocked.textContent()).toContain("Failed condition: missing_role_scope");
    expect(await blocked.textContent()).toContain("role_grants_scope");
    expect(steps[9]).toContain("Not evaluated");
    expect(page.url()).toContain(`tool=`);
    await assertAccessible(page, "Explain: a denied call");

    // The safest fix, previewed: nothing written yet.
    await expect.poll(() => page.getByRole("region", { name: "Safest fix" }).textContent()).toContain("Note writer");
    await page.getByRole("button", { name: "Preview this fix" }).click();
    await expect.poll(() => status(/would give/).first().textContent()).toContain("This would give 1 user 2 tools");
    await expect.poll(() => page.getByRole("list", { name: "Who gains and loses what" }).textContent()).toBe(`${reader.email} gains create_note, delete_note (scopes notes:write)`);
    await assertAccessible(page, "Explain: the change preview");
    expect((await rawCall(mcpUrl.href, afterStepUpAttempt, "create_note")).status).toBe(403);

    // Apply, after a confirmation naming what it affects.
    await page.getByRole("button", { name: "Apply this fix" }).click();
    await expect.poll(() => dialog().textContent()).toContain(`Bind ${reader.email} to the role Note writer on Sample notes only.`);
    expect(await dialog().textContent()).toContain("It affects 1 user: this would give 1 user 2 tools (create_note, delete_note).");
    await assertAccessible(page, "Explain: the apply confirmation");
    await dialog().getByRole("button", { name: "Apply the fix" }).click();
    await expect.poll(() => page.getByRole("heading", { level: 2, name: /create_note for/ }).textContent()).toBe(`create_note for ${reader.email}: Allowed`);
    expect(await trace.locator('[aria-current="step"]').count()).toBe(0);
    await assertAccessible(page, "Explain: the call allowed");

    // The binding the fix made, through the bindings API: the user alone, on this application only.
    const userId = new URL(page.url()).searchParams.get("user")!;
    const bindings = await h.admin("GET", `/uflow/v2/users/${userId}/role-bindings`);
    const roles = await h.admin("GET", "/svc/authmgr/roles");
    const writer = roles.body.items.find((r: { name: string }) => r.name === "Note writer");
    expect(bindings.body.items.filter((b: { role_id: string }) => b.role_id === writer.id)).toEqual([expect.objectContaining({ scope_type: "resource_server", scope_id: rsId, expires_at: null })]);

    // The same call through the same MCP client: it steps up (the user now may hold notes:write) and succeeds.
    await expect(callCreateNote()).rejects.toBeInstanceOf(UnauthorizedErrorV2);
    await finishSignIn();
    expect(await callCreateNote()).toBe("saved first");
  }, 120_000);

  it("an unmapped tool: the fix maps it to a scope the user holds, previewed and applied from the browser", async () => {
    // Unmapped through the admin API (denied to everyone once launched; a drift event records it).
    const unmap = await h.admin("PUT", `/svc/resource-servers/${rsId}/tool-scope-map`, { mappings: [{ tool_name: "read_note", scope_ids: [] }] });
    expect(unmap.status, unmap.text).toBe(200);
    expect(unmap.body.grid.read_note).toEqual({ "notes:read": false, "notes:write": false });
    await page.getByLabel("Tool").selectOption({ label: "read_note" });
    await page.getByLabel("Client (optional)").selectOption("");
    await page.getByRole("button", { name: "Run the simulation" }).click();
    await expect.poll(() => page.getByRole("heading", { level: 2, name: /read_note for/ }).textContent()).toBe(`read_note for ${reader.email}: Denied`);
    await expect.poll(() => page.getByRole("list", { name: "Decision trace" }).locator('[aria-current="step"]').textContent()).toContain("Failed condition: tool_not_mapped");
    await page.getByRole("button", { name: "Preview this fix" }).click();
    await expect.poll(() => status(/would give/).first().textContent()).toMatch(/This would give \d+ users? 1 tool/);
    expect(await page.getByRole("list", { name: "Who gains and loses what" }).textContent()).toContain(`${reader.email} gains read_note`);
    await page.getByRole("button", { name: "Apply this fix" }).click();
    await expect.poll(() => dialog().textContent()).toContain("Map read_note to notes:read, notes:write on Sample notes.");
    await dialog().getByRole("button", { name: "Apply the fix" }).click();
    await expect.poll(() => page.getByRole("heading", { level: 2, name: /read_note for/ }).textContent()).toBe(`read_note for ${reader.email}: Allowed`);
    const map = await h.admin("GET", `/svc/resource-servers/${rsId}/scope-matrix`);
    expect(map.body.grid.read_note).toEqual({ "notes:read": true, "notes:write": true });
  }, 60_000);

  it("creates an evidence export on the application page, downloads its files and verifies it in the browser", async () => {
    await goTo(page, "Applications");
    await page.getByRole("link", { name: "Sample notes" }).click();
    await expect.poll(heading).toBe("Sample notes");
    const panel = page.getByRole("region", { name: "Evidence exports" });
    await panel.getByText("No export yet.").waitFor();
    await panel.getByRole("button", { name: "Create an evidence export" }).click();
    await status("Export 1 created.").first().waitFor();
    await panel.getByRole("button", { name: "Create an evidence export" }).click();
    await status("Export 2 created.").first().waitFor();
    const second = panel.getByRole("listitem", { name: "Export 2" });
    await second.getByRole("button", { name: "Verify export 2" }).click();
    const verdict = page.getByRole("status", { name: "Verification of export 2" });
    await expect.poll(() => verdict.textContent(), { timeout: 10_000 }).toContain("Verified");
    expect(await verdict.textContent()).toContain("chained to export 1");
    expect(await verdict.textContent()).toMatch(/files: \d+ files match/);
    await assertAccessible(page, "one application with evidence exports");

    // The downloaded manifest is the server's, byte for byte.
    const listed = await h.admin("GET", `/svc/v1/applications/${rsId}/evidence-exports`);
    const e2 = listed.body.items[0];
    expect(e2.seq).toBe(2);
    const [download] = await Promise.all([page.waitForEvent("download"), second.getByRole("button", { name: "Download manifest.json" }).click()]);
    expect(download.suggestedFilename()).toBe(`${e2.export_id}-manifest.json`);
    const served = await h.request("GET", e2.files[0].path, { token: h.adminToken });
    expect(await readFile((await download.path())!, "utf8")).toBe(served.text);

    // A data file altered in storage: the browser's verification says which file and why.
    const e1 = listed.body.items[1];
    const chunk = await h.db.evidenceChunk.findFirstOrThrow({ where: { exportId: e1.export_id, file: "access.csv", seq: 0 } });
    await h.db.evidenceChunk.update({ where: { exportId_file_seq: { exportId: e1.export_id, file: "access.csv", seq: 0 } }, data: { content: chunk.content.replace("true", "fals") } });
    await panel.getByRole("listitem", { name: "Export 1" }).getByRole("button", { name: "Verify export 1" }).click();
    const tampered = page.getByRole("status", { name: "Verification of export 1" });
    await expect.poll(() => tampered.textContent(), { timeout: 10_000 }).toContain("Does not verify");
    expect(await tampered.textContent()).toMatch(/✗ files: access\.csv: SHA-256 [0-9a-f]{64} \(\d+ bytes\), manifest says [0-9a-f]{64}/);
    expect(await tampered.textContent()).toContain("✓ signature");
    await assertAccessible(page, "an export that does not verify");

    expect(errors).toEqual([]);
  }, 60_000);
});
