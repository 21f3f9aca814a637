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
  expect((await rescan(h, rs.id, token)).status).toBe(200);
  await mapAndActivate(h, rs.id, {
    scopes: { "files:read": "Read files", "files:write": "Write files" },
    mappings: { read_file: ["files:read"], list_dir: ["files:read"], write_file: ["files:write"], delete_file: ["files:write"] },
    token,
  });
  return { ...rs, mcp };
}

/**
 * Takes a scanned server to `ready`: creates `scopes`, maps tools to them, marks `publicTools`
 * public (typed confirmation), disables the access policy explicitly and activates.
 */
export async function mapAndActivate(
  h: Harness,
  rsId: string,
  spec: { scopes: Record<string, string>; mappings: Record<string, string[]>; publicTools?: string[]; token?: string },
): Promise<void> {
  const call = (m: string, p: string, json?: unknown) => h.request(m, `/svc/resource-servers/${rsId}${p}`, { token: spec.token ?? h.adminToken, json });
  for (const [id, name] of Object.entries(spec.scopes)) expect((await call("POST", "/scopes", { id, name })).status).toBe(201);
  const map = await call("PUT", "/tool-scope-map", { mappings: Object.entries(spec.mappings).map(([tool_name, scope_ids]) => ({ tool_name, scope_ids })) });
  expect(map.status, map.text).toBe(200);
  if (spec.publicTools?.length) {
    const tools = (await call("GET", "/tools")).body.items as { tool_id: string; tool_name: string }[];
    for (const name of spec.publicTools) {
      const marked = await call("POST", `/tools/${tools.find((t) => t.tool_name === name)!.tool_id}/public`, { confirm: name });
      expect(marked.status, marked.text).toBe(200);
    }
  }
  expect((await call("PUT", "/access-policy", { enabled: false })).status).toBe(200);
  const act = await call("POST", "/activate");
  expect(act.status, act.text).toBe(200);
}

/** Creates a role of the workspace directly (the roles REST API belongs to the RBAC module). */
export async function createRole(h: Harness, tenantId: string, name: string): Promise<string> {
  const role = await h.db.role.create({ data: { tenantId, name } });
  return role.id;
}
