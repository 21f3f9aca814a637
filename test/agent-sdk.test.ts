// toolgate/agent against a real Toolgate and a real toolgate/sdk-protected MCP server (the sample
// notes server), with the official MCP clients: tokens cached per (server, scopes) with one request
// for concurrent callers, refreshed in the background, retried with backoff and jitter honouring
// Retry-After, stepped up to the union of scopes on insufficient_scope, and supplied to the SDK's
// transport as its auth provider; a disabled agent is shut out at the next introspection.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { createAgent, TokenRequestError, type ToolgateAgentOptions } from "toolgate/agent";
import { startToolgate, type Harness } from "./helpers/harness";
import { readySample } from "./helpers/sdk-flow";
import { eventually } from "./helpers/eventually";
import { startSampleServer, type SampleServer } from "../examples/sample-mcp-server/server";

let h: Harness;
let sample: SampleServer;
let mcpUrl: string;
let agent: { id: string; client_id: string; client_secret: string };
/** Token requests the agents of this file made (their fetch counts them). */
let tokenRequests = 0;

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } });
  const rs = await readySample(h);
  sample = await startSampleServer({
    port: rs.port,
    toolgate: { issuer: h.url, resourceServerId: rs.id, introspectionSecret: rs.secret, introspectionCacheMs: 100, policyRefreshMs: 200, scopesSupported: ["notes:read"] },
  });
  mcpUrl = `${sample.url}/mcp`;
  const role = await h.admin("POST", "/svc/authmgr/roles", { name: "Note takers", grants: [{ resource_server_id: rs.id, scope_ids: ["notes:read", "notes:write"] }] });
  const created = await h.admin("POST", "/svc/sdkmgr/agents", { name: "Notes agent", kind: "autonomous", access: [{ resource_server_id: rs.id, role_id: role.body.id }] });
  expect(created.status, created.text).toBe(201);
  agent = created.body;
});
afterAll(async () => {
  await sample?.close();
  await h?.close();
});

function newAgent(over: Partial<ToolgateAgentOptions> = {}) {
  return createAgent({
    issuer: h.url,
    clientId: agent.client_id,
    clientSecret: agent.client_secret,
    fetch: (input, init) => {
      if (String(input).endsWith("/oauth/token")) tokenRequests++;
      return fetch(input, init);
    },
    ...over,
  });
}

const text = (r: any) => (r.content as { text: string }[])[0]!.text;

describe("toolgate/agent", () => {
  it("caches a token per (server, scopes) and asks once for concurrent callers", async () => {
    const a = newAgent();
    const before = tokenRequests;
    const tokens = await Promise.all(Array.from({ length: 10 }, () => a.token(mcpUrl, ["notes:read"])));
    expect(new Set(tokens).size).toBe(1);
    expect(tokenRequests - before).toBe(1);
    expect(await a.token(mcpUrl, ["notes:read"])).toBe(tokens[0]);
    expect(tokenRequests - before).toBe(1);
    const both = await a.tokenSet(mcpUrl, ["notes:write", "notes:read"]);
    expect(both.scopes.sort()).toEqual(["notes:read", "notes:write"]);
    expect(tokenRequests - before).toBe(2);
    expect((await a.tokenSet(mcpUrl, ["notes:read", "notes:write"])).accessToken).toBe(both.accessToken); // same set, same key
    a.close();
  });

  it("refreshes in the background before expiry, without making a caller wait", async () => {
    // Refresh 150 ms after issue (a 3600 s token refreshed "3600 s - 150 ms before expiry").
    const a = newAgent({ refreshBeforeExpiryMs: 3_600_000 - 150 });
    const first = await a.token(mcpUrl, ["notes:read"]);
    await eventually(async () => (await a.token(mcpUrl, ["notes:read"])) !== first, "a refreshed token");
    a.close();
  });

  it("retries with exponential backoff and jitter, honouring Retry-After; an OAuth refusal is final", async () => {
    // A proxy in front of the token endpoint: 503 with Retry-After, 429, a dropped connection, then through.
    const answers: Array<"503" | "429" | "drop" | "pass"> = ["503", "429", "drop", "pass"];
    const proxy: Server = createHttpServer(async (req, res) => {
      const next = answers.shift() ?? "pass";
      if (next === "503") return void res.writeHead(503, { "retry-after": "2", "content-type": "application/json" }).end('{"error":"temporarily_unavailable"}');
      if (next === "429") return void res.writeHead(429, { "content-type": "application/json" }).end('{"error":"slow_down"}');
      if (next === "drop") return void req.socket.destroy();
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const upstream = await fetch(`${h.url}/oauth/token`, { method: "POST", headers: { "content-type": String(req.headers["content-type"]), authorization: String(req.headers.authorization) }, body: Buffer.concat(chunks) });
      res.writeHead(upstream.status, { "content-type": "application/json" }).end(await upstream.text());
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    try {
      const waits: number[] = [];
      const a = newAgent({
        tokenEndpoint: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/oauth/token`,
        retry: { attempts: 5, baseMs: 100, maxMs: 5_000 },
        random: () => 0.5,
        sleep: async (ms) => void waits.push(ms),
      });
      expect(await a.token(mcpUrl, ["notes:read"])).toMatch(/^ey/);
      // 1: Retry-After 2 s beats the backoff (75 ms); 2: 200 ms with jitter 0.5 -> 150; 3: 400 -> 300.
      expect(waits).toEqual([2000, 150, 300]);
      const refused = await newAgent({ sleep: async (ms) => void waits.push(ms) }).token(mcpUrl, ["notes:admin"]).catch((e) => e);
      expect(refused).toBeInstanceOf(TokenRequestError);
      expect(refused).toMatchObject({ error: "invalid_scope", status: 400 });
      expect(waits).toHaveLength(3); // not retried
      a.close();
    } finally {
      proxy.close();
    }
  });

  it("steps up to the union of the scopes held and those an insufficient_scope challenge names", async () => {
    const a = newAgent();
    const read = await a.token(mcpUrl, ["notes:read"]);
    const call = await fetch(mcpUrl, {
      method: "POST",
      headers: { authorization: `Bearer ${read}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "create_note", arguments: { title: "x", body: "y" } } }),
    });
    expect(call.status).toBe(403);
    // A server that names only the missing scope still gets both back.
    const up = await a.stepUp(mcpUrl, 'Bearer error="insufficient_scope", scope="notes:write"');
    expect(up.scopes.sort()).toEqual(["notes:read", "notes:write"]);
    expect(a.scopesFor(mcpUrl).sort()).toEqual(["notes:read", "notes:write"]);
    a.close();
  });

  it("is the auth provider of the official MCP client (@modelcontextprotocol/client): cached tokens, step-up on 403", async () => {
    const a = newAgent();
    const before = tokenRequests;
    const client = new ClientV2({ name: "notes-agent-v2", version: "1.0.0" });
    await client.connect(new TransportV2(new URL(mcpUrl), { authProvider: a.mcpAuth(mcpUrl, { scopes: ["notes:read"] }) }));
    // tools/list shows what notes:read allows (toolgate/sdk filters it).
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("list_notes");
    expect(text(await client.callTool({ name: "list_notes", arguments: {} }))).toContain("welcome");
    expect(tokenRequests - before).toBe(1); // every MCP request so far used the one cached token
    // create_note needs notes:write: 403 insufficient_scope, then a token for both, then the call.
    expect(text(await client.callTool({ name: "create_note", arguments: { title: "from-v2", body: "hello" } }))).toMatch(/from-v2/);
    // The SDK posted that step-up request itself (prepareTokenRequest named the union); the agent
    // adopted its answer: the next calls use it, with no request of the agent's own.
    expect(a.scopesFor(mcpUrl).sort()).toEqual(["notes:read", "notes:write"]);
    expect(text(await client.callTool({ name: "create_note", arguments: { title: "again", body: "hello" } }))).toMatch(/again/);
    expect(text(await client.callTool({ name: "list_notes", arguments: {} }))).toContain("from-v2");
    expect(tokenRequests - before).toBe(1);
    await client.close();
    a.close();
  });

  it("and of @modelcontextprotocol/sdk's client (with the provider's fetch reading the challenges)", async () => {
    const a = newAgent();
    const auth = a.mcpAuth(mcpUrl, { scopes: ["notes:read"] });
    const client = new Client({ name: "notes-agent-v1", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: auth, fetch: auth.fetch }));
    expect(text(await client.callTool({ name: "create_note", arguments: { title: "from-v1", body: "hello" } }))).toMatch(/from-v1/);
    await client.close();
    a.close();
  });

  it("a disabled agent is shut out at the next introspection; its MCP calls fail", async () => {
    const a = newAgent();
    const client = new ClientV2({ name: "notes-agent-disabled", version: "1.0.0" });
    await client.connect(new TransportV2(new URL(mcpUrl), { authProvider: a.mcpAuth(mcpUrl, { scopes: ["notes:read"] }) }));
    expect(text(await client.callTool({ name: "list_notes", arguments: {} }))).toContain("welcome");
    expect((await h.admin("POST", `/svc/sdkmgr/agents/${agent.id}/disable`)).status).toBe(200);
    // The sample server caches an introspection answer for 100 ms (introspectionCacheMs).
    await eventually(async () => (await client.callTool({ name: "list_notes", arguments: {} }).then(() => false, () => true)), "the call refused");
    await expect(a.token(mcpUrl, ["notes:read", "notes:write", "x"])).rejects.toMatchObject({ error: "invalid_client" });
    await h.admin("POST", `/svc/sdkmgr/agents/${agent.id}/enable`);
    await client.close().catch(() => undefined);
    a.close();
  });
});
