// The cockpit in a real browser (headless Chromium) against a real Toolgate on a real database:
// a newcomer's first hour end to end — sign in, register the sample MCP server from examples/,
// scan, map its tools, set the access policy, activate, add a user and a client, connect with the
// official MCP client, and see the connection — with axe on every screen and dialog on the way;
// then the second factor: enrol an authenticator in Settings and sign in with it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { TOTP } from "otpauth";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { startToolgate, ADMIN_EMAIL, ADMIN_PASSWORD, type Harness } from "./helpers/harness";
import { assertAccessible, goTo, launchBrowser, signIn, watchErrors } from "./helpers/cockpit";
import { SignInProvider } from "./helpers/sdk-oauth-provider";
import { startSampleServer, type SampleServer } from "../examples/sample-mcp-server/server";

let h: Harness;
let browser: Browser;
let page: Page;
let errors: string[];
let sample: SampleServer;
const reader = { email: "rita@example.test", username: "rita", password: "rita-password-1" };

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } });
  browser = await launchBrowser();
  page = await (await browser.newContext()).newPage();
  errors = watchErrors(page);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await sample?.close();
  await h?.close();
});

const dialog = () => page.getByRole("dialog");
const status = (text: string | RegExp) => page.getByRole("status").filter({ hasText: text });

describe("the cockpit in Chromium", () => {
  it("takes a newcomer from sign-in to a connected MCP client", async () => {
    // The sample server, open for the scan (it goes behind Toolgate once activated).
    sample = await startSampleServer();
    const port = Number(new URL(sample.url).port);

    await signIn(page, h);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Applications");
    await expect.poll(() => page.getByRole("table", { name: "Applications" }).textContent()).toContain("No MCP server is registered yet");
    await assertAccessible(page, "Applications (empty)");

    // Register: the secret once, the SDK snippet filled in.
    await page.getByRole("button", { name: "Register an MCP server" }).click();
    await assertAccessible(page, "the register dialog");
    await dialog().getByLabel("Name").fill("Sample notes");
    await dialog().getByLabel("Public base URL").fill(sample.url);
    await dialog().getByLabel("Scopes (optional)").fill("notes:read notes:write");
    await dialog().getByRole("button", { name: "Register" }).click();
    await expect.poll(() => dialog().getByRole("heading", { level: 2 }).textContent()).toBe("Sample notes registered");
    const secret = (await dialog().getByTestId("secret").textContent())!;
    expect(secret.length).toBeGreaterThan(30);
    const snippet = await dialog().getByTestId("sdk-snippet").textContent();
    expect(snippet).toContain(`resource: "${sample.url}/mcp"`);
    expect(snippet).toContain('from "toolgate/sdk"');
    await assertAccessible(page, "the secret shown once");
    await dialog().getByRole("link", { name: "Open Sample notes" }).click();

    // One application: scan, then the checklist says what is next.
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Sample notes");
    await page.getByText("Not launched").first().waitFor();
    await page.getByRole("button", { name: "Scan now" }).click();
    await status(/Scan finished/).first().waitFor({ timeout: 10_000 }).catch(async (e) => { throw new Error(`${e.message}\n${await page.locator("main").textContent()}`); });
    await page.getByText("Discovered").first().waitFor();
    await expect.poll(() => page.getByRole("table", { name: "Scope matrix of Sample notes" }).textContent()).toContain("list_notes");

    // Map the tools in the grid, save once; make server_time public (typed confirmation).
    for (const [tool, scope] of [["list_notes", "notes:read"], ["read_note", "notes:read"], ["create_note", "notes:write"], ["delete_note", "notes:write"]]) {
      await page.getByRole("checkbox", { name: `${scope} for ${tool}` }).check();
    }
    await page.getByRole("button", { name: "Save mapping" }).click();
    await status("Mapping saved.").first().waitFor();
    await page.getByRole("button", { name: "Make server_time public" }).click();
    await assertAccessible(page, "the public-tool confirmation");
    await dialog().getByLabel("Type server_time to confirm").fill("server_time");
    await dialog().getByRole("button", { name: "Make server_time public" }).click();
    await status("server_time is public.").first().waitFor();
    await assertAccessible(page, "one application");

    // A role for first-time users, then the access policy and the activation.
    await goTo(page, "People and access");
    await page.getByRole("link", { name: "Roles" }).click();
    await page.getByLabel("Role name").fill("Note reader");
    await page.getByRole("checkbox", { name: "notes:read" }).check();
    await page.getByRole("button", { name: "Create role" }).click();
    await status("Role created.").first().waitFor();
    await expect.poll(() => page.getByRole("table", { name: "Roles" }).textContent()).toContain("Sample notes: notes:read");
    await assertAccessible(page, "People: roles");

    await goTo(page, "Applications");
    await expect.poll(() => page.getByRole("table", { name: "Applications" }).textContent()).toContain("4 mapped, 1 public, 0 denied");
    await page.getByRole("link", { name: "Sample notes" }).click();
    await page.getByLabel("Default role").selectOption({ label: "Note reader" });
    await page.getByRole("button", { name: "Save access policy" }).click();
    await status("Access policy saved.").first().waitFor();
    await page.getByText("Every item is done").first().waitFor();
    await page.getByRole("button", { name: "Activate", exact: true }).click();
    await assertAccessible(page, "the activation confirmation");
    await dialog().getByRole("button", { name: "Activate" }).click();
    await status("Sample notes is launched.").first().waitFor();
    await page.getByText("Launched: the runtime enforces this policy.").first().waitFor();

    // The sample goes behind Toolgate with the secret the cockpit showed.
    await sample.close();
    const rsId = page.url().split("/applications/")[1]!.split(/[#?]/)[0]!;
    sample = await startSampleServer({ port, toolgate: { issuer: h.config.publicUrl, resourceServerId: rsId, introspectionSecret: secret } });
    await page.getByRole("button", { name: "Check runtime readiness" }).click();
    await expect.poll(() => page.getByRole("status").filter({ hasText: "OAuth:" }).textContent()).toContain("ready");
    await page.reload();
    await signIn(page, h);
    await page.goto(`${h.url}/cockpit/applications/${rsId}`);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Sign in to Toolgate");
    // A reload forgets the token (memory only): signing in returns to the screen asked for.
    await page.getByLabel("Email", { exact: true }).fill(ADMIN_EMAIL);
    await page.getByLabel("Password", { exact: true }).fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Sample notes");
    await page.getByText(/pushed .*, 5 tools/).first().waitFor();

    // A user who will sign in through the MCP client.
    await goTo(page, "People and access");
    await page.getByRole("button", { name: "Add a user" }).click();
    await dialog().getByLabel("Email", { exact: true }).fill(reader.email);
    await dialog().getByLabel("Username").fill(reader.username);
    await dialog().getByLabel("Password (optional)").fill(reader.password);
    await dialog().getByRole("button", { name: "Add user" }).click();
    await expect.poll(() => page.getByRole("table", { name: "Members of the workspace" }).textContent()).toContain(reader.email);
    await assertAccessible(page, "People: members");

    // A pre-registered public agent client, its id copied from the dialog.
    await goTo(page, "Clients and connections");
    await page.getByRole("button", { name: "Register a client" }).click();
    await dialog().getByLabel("Client name").fill("Notes agent");
    await dialog().getByLabel("Client type").selectOption("agent");
    const redirect = "http://127.0.0.1:4999/callback";
    await dialog().getByLabel("Redirect URIs").fill(redirect);
    await dialog().getByLabel("Public client (no secret; PKCE only)").check();
    await dialog().getByRole("checkbox", { name: "notes:read" }).check();
    await dialog().getByRole("checkbox", { name: "notes:write" }).check();
    await assertAccessible(page, "the client registration form");
    await dialog().getByRole("button", { name: "Register client" }).click();
    const clientId = (await dialog().getByTestId("client-id").textContent())!;
    expect(clientId).toMatch(/^tgc_/);
    await dialog().getByRole("button", { name: "Close" }).click();
    const clients = page.getByRole("table", { name: "Pre-registered clients of Sample notes" });
    await expect.poll(() => clients.getByRole("row", { name: /Notes agent/ }).textContent()).toContain("never");

    // The official MCP client (v1 SDK) connects with that client id; the user signs in.
    const provider = new SignInProvider({ publicUrl: h.config.publicUrl, serverUrl: h.url, user: reader, redirectUrl: redirect, preRegistered: { client_id: clientId } });
    const url = new URL(`${sample.url}/mcp`);
    const first = new Client({ name: "newcomer", version: "1.0.0" });
    await expect(first.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }))).rejects.toBeInstanceOf(UnauthorizedError);
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await transport.finishAuth(provider.callback!.searchParams.get("code")!);
    const mcp = new Client({ name: "newcomer", version: "1.0.0" });
    await mcp.connect(transport);
    expect((await mcp.listTools()).tools.map((t) => t.name).sort()).toEqual(["list_notes", "read_note", "server_time"]);
    expect((await mcp.callTool({ name: "list_notes", arguments: {} })).isError).toBeFalsy();
    await mcp.close();

    // The cockpit shows the connection: last connected, and the role the first sign-in granted.
    await h.services.oauth.lastUsed.flush();
    await goTo(page, "Applications");
    await goTo(page, "Clients and connections");
    await clients.getByRole("row", { name: /Notes agent/ }).locator("time").first().waitFor();
    await assertAccessible(page, "Clients and connections");
    await goTo(page, "People and access");
    await page.getByRole("link", { name: reader.email }).first().click();
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe(`Access of ${reader.email}`);
    await expect.poll(() => page.getByRole("listitem", { name: /role Note reader/ }).textContent()).toContain("list_notes");
    await assertAccessible(page, "a user's effective access");

    expect(errors).toEqual([]);
  }, 180_000);

  it("enrols an authenticator in Settings, then signs in with its code", async () => {
    await goTo(page, "Settings");
    await assertAccessible(page, "Settings");
    await page.getByRole("button", { name: "Set up an authenticator app" }).click();
    await page.getByRole("img", { name: /QR code for otpauth:/ }).first().waitFor();
    const secret = (await page.getByTestId("totp-secret").textContent())!;
    const totp = new TOTP({ secret });
    await page.getByLabel("Code from the app").fill(totp.generate());
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.getByTestId("recovery-codes").first().waitFor();
    const recovery = (await page.getByTestId("recovery-codes").textContent())!.split("\n");
    expect(recovery).toHaveLength(10);
    await assertAccessible(page, "Settings with recovery codes");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Email", { exact: true }).fill(ADMIN_EMAIL);
    await page.getByLabel("Password", { exact: true }).fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Second factor" }).first().waitFor();
    await assertAccessible(page, "the second-factor step");
    // The password step answers 401 mfa_required (src/rest/auth.ts): the browser logs that response itself.
    expect(errors.filter((e) => !/status of 401 \(Unauthorized\) \(http:\/\/[^)]+\/svc\/uflow\/auth\/login\)$/.test(e))).toEqual([]);
    // A wrong code: the server's message, as sent (the browser logs the 401 itself; nothing else may appear).
    await page.getByLabel(/Code from your authenticator app/).fill("000000");
    await page.getByRole("button", { name: "Verify" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("invalid or already used code");
    // Signed out from Settings, signed in again: back to Settings.
    await page.getByLabel(/Code from your authenticator app/).fill(recovery[0]!);
    await page.getByRole("button", { name: "Verify" }).click();
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Settings");
    expect(errors.filter((e) => !e.includes("status of 401"))).toEqual([]);
  }, 60_000);
});
