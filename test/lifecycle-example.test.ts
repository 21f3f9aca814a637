// The walk-through of docs/lifecycle.md as a test, so the doc and the shipped example cannot rot:
// the sample MCP server is registered, scanned, mapped and activated, then restarted behind
// Toolgate, where a real MCP client (official SDK) with a client-credentials token is allowed
// exactly what the compiled policy says.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startToolgate, type Harness } from "./helpers/harness";
import { register, rescan } from "./helpers/lifecycle-flow";
import { startSampleServer, type SampleServer } from "../examples/sample-mcp-server/server";

let h: Harness;
const running: SampleServer[] = [];

beforeAll(async () => {
  // As docs/lifecycle.md says: the sample server runs on 127.0.0.1, a private address.
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } });
});
afterAll(async () => {
  for (const s of running) await s.close();
  await h?.close();
});

async function mcpCall(url: string, token: string, tool: string, args: Record<string, unknown> = {}) {
  const client = new Client({ name: "walkthrough", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  try {
    await client.connect(transport);
    const r = await client.callTool({ name: tool, arguments: args });
    return { ok: true as const, text: (r.content as { text: string }[])[0]!.text };
  } catch (e) {
    return { ok: false as const, error: String((e as Error).message) };
  } finally {
    await client.close();
  }
}

describe("docs/lifecycle.md walk-through", () => {
  it("registers, scans, sets up and activates the sample server, which then enforces the policy", async () => {
    const open = await startSampleServer();
    running.push(open);
    const rs = await register(h, open.url, { path: "/mcp" });
    const admin = (m: string, p: string, json?: unknown) => h.admin(m, `/svc/resource-servers/${rs.id}${p}`, json);

    expect((await rescan(h, rs.id)).body).toMatchObject({ state: "needs_setup", scan_generation: 1 });
    const tools = (await admin("GET", "/tools")).body.items as { tool_id: string; tool_name: string }[];
    expect(tools.map((t) => t.tool_name)).toEqual(["create_note", "delete_note", "list_notes", "read_note", "server_time"]);

    await admin("POST", "/scopes", { id: "notes:read", name: "Read notes" });
    await admin("POST", "/scopes", { id: "notes:write", name: "Write notes" });
    await admin("PUT", "/tool-scope-map", {
      mappings: [
        { tool_name: "list_notes", scope_ids: ["notes:read"] },
        { tool_name: "read_note", scope_ids: ["notes:read"] },
        { tool_name: "create_note", scope_ids: ["notes:write"] },
        { tool_name: "delete_note", scope_ids: ["notes:write"] },
      ],
    });
    await admin("POST", `/tools/${tools.find((t) => t.tool_name === "server_time")!.tool_id}/public`, { confirm: "server_time" });
    await admin("PUT", "/access-policy", { enabled: false });
    expect((await admin("GET", "/activation-preview")).body).toMatchObject({ can_activate: true, denied_tools: [], public_tools: ["server_time"] });
    expect((await admin("POST", "/test-login")).body.ok).toBe(true);
    expect((await admin("POST", "/activate")).body.state).toBe("ready");

    // Restart behind Toolgate: the manifest is pushed on start.
    await open.close();
    // Same port, so the registered resource_url (the tokens' audience) still names it.
    const guarded = await startSampleServer({ port: Number(new URL(open.url).port), toolgate: { issuer: h.url, resourceServerId: rs.id, introspectionSecret: rs.secret, policyRefreshMs: 0 } });
    running.push(guarded);
    expect((await admin("GET", "/sdk-manifest-status")).body).toMatchObject({ pushed: true, valid: true, tool_count: 5, warnings: [] });

    const client = await admin("POST", "/clients", { client_name: "notes-bot", redirect_uris: [], kind: "m2m", grant_types: ["client_credentials"], allowed_scopes: ["notes:read"] });
    expect(client.status, client.text).toBe(201);
    const tokenRes = await h.request("POST", "/oauth/token", {
      form: { grant_type: "client_credentials", client_id: client.body.client_id, client_secret: client.body.client_secret, scope: "notes:read" },
    });
    expect(tokenRes.status, tokenRes.text).toBe(200);
    const token = tokenRes.body.access_token as string;

    expect(await mcpCall(guarded.url, "not-a-token", "list_notes")).toMatchObject({ ok: false, error: expect.stringMatching(/invalid_token/) });
    expect(await mcpCall(guarded.url, token, "list_notes")).toEqual({ ok: true, text: "welcome" });
    expect(await mcpCall(guarded.url, token, "server_time")).toMatchObject({ ok: true });
    expect(await mcpCall(guarded.url, token, "create_note", { title: "x", body: "y" })).toMatchObject({ ok: false, error: expect.stringMatching(/insufficient_scope/) });

    // Drift: unmapping read_note is recorded, and the runtime denies it at its next refresh.
    expect(await mcpCall(guarded.url, token, "read_note", { title: "welcome" })).toMatchObject({ ok: true });
    await admin("PUT", "/tool-scope-map", { mappings: [{ tool_name: "read_note", scope_ids: [] }] });
    expect((await admin("GET", "/drift-events?undismissed=true")).body.items.map((e: { event_type: string }) => e.event_type)).toEqual(["tool_unmapped"]);
    expect(await mcpCall(guarded.url, token, "read_note", { title: "welcome" })).toMatchObject({ ok: false, error: expect.stringMatching(/access_denied.*not mapped/) });
  });
});
