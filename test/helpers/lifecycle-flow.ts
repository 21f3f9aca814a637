// The resource-server lifecycle driven over HTTP as an administrator would: register, scan,
// define scopes, map, set the access policy, activate. Each step asserts its status so a test
// that builds on it fails at the step that broke, not later.
import { expect } from "vitest";
import type { Harness } from "./harness";
import { SAMPLE_TOOLS, startMcpServer, type McpTestServer, type ToolSpec } from "./mcp-servers";

export interface Registered {
  id: string;
  secret: string;
  body: any;
}

let counter = 0;

/**
 * Registers a server on the MCP endpoint of `baseUrl`. The default path is unique (/mcp/rsN;
 * the test servers answer under /mcp) because resource_url is unique per workspace.
 */
export async function register(h: Harness, baseUrl: string, opts: { token?: string; path?: string; scopes?: string[]; name?: string } = {}): Promise<Registered> {
  counter++;
  const body = {
    name: opts.name ?? `MCP ${counter}`,
    public_base_url: baseUrl,
    protected_base_path: opts.path ?? `/mcp/rs${counter}`,
    scopes_supported: opts.scopes ?? [],
  };
  const r = await h.request("POST", "/svc/resource-servers", { token: opts.token ?? h.adminToken, json: body });
  expect(r.status, r.text).toBe(201);
  return { id: r.body.id, secret: r.body.introspection_secret, body: r.body };
}

export async function rescan(h: Harness, id: string, token = h.adminToken, json?: unknown) {
  return h.request("POST", `/svc/resource-servers/${id}/rescan`, { token, json });
}

export interface ReadyServer extends Registered {
  mcp: McpTestServer;
}

/**
 * A `ready` server: SAMPLE_TOOLS scanned; scopes files:read (read_file, list_dir) and files:write
 * (write_file, delete_file); access policy explicitly disabled; activated.
 */
export async function readyServer(h: Harness, opts: { token?: string; tools?: ToolSpec[] } = {}): Promise<ReadyServer> {
  const token = opts.token ?? h.adminToken;
  const mcp = await startMcpServer({ tools: opts.tools ?? SAMPLE_TOOLS });
  const rs = await register(h, mcp.url, { token });
  const call = (m: string, p: string, json?: unknown) => h.request(m, `/svc/resource-servers/${rs.id}${p}`, { token, json });
  expect((await rescan(h, rs.id, token)).status).toBe(200);
  expect((await call("POST", "/scopes", { id: "files:read", name: "Read files" })).status).toBe(201);
  expect((await call("POST", "/scopes", { id: "files:write", name: "Write files" })).status).toBe(201);
  const map = await call("PUT", "/tool-scope-map", {
    mappings: [
      { tool_name: "read_file", scope_ids: ["files:read"] },
      { tool_name: "list_dir", scope_ids: ["files:read"] },
      { tool_name: "write_file", scope_ids: ["files:write"] },
      { tool_name: "delete_file", scope_ids: ["files:write"] },
    ],
  });
  expect(map.status, map.text).toBe(200);
  expect((await call("PUT", "/access-policy", { enabled: false })).status).toBe(200);
  const act = await call("POST", "/activate");
  expect(act.status, act.text).toBe(200);
  return { ...rs, mcp };
}

/** Creates a role of the workspace directly (the roles REST API belongs to the RBAC module). */
export async function createRole(h: Harness, tenantId: string, name: string): Promise<string> {
  const role = await h.db.role.create({ data: { tenantId, name } });
  return role.id;
}
