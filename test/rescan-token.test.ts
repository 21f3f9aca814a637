// POST .../rescan with an mcp_token that cannot be sent as an HTTP header value: a 400 naming the
// field, checked before the scan claims the server, so nothing about the server changes (it used
// to answer 502 and turn a needs_setup server into scan_failed).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, type Harness } from "./helpers/harness";
import { SAMPLE_TOOLS, startMcpServer, type McpTestServer } from "./helpers/mcp-servers";
import { register, rescan } from "./helpers/lifecycle-flow";
import { DomainError } from "../src/shared/errors";

const MESSAGE = "mcp_token: must be visible ASCII characters only (no spaces, control or non-ASCII characters): it is sent as an HTTP Bearer token";
const UNSENDABLE: [string, string][] = [
  ["é (U+00E9)", "tok\u00e9n"],
  ["€ (U+20AC)", "tok\u20acn"],
  ["a control character", "tok\u0001en"],
  ["a line break", "tok\r\nX-Injected: 1"],
  ["DEL", "tok\u007fen"],
  ["a space", "tok en"],
];

let h: Harness;
const servers: McpTestServer[] = [];

beforeAll(async () => {
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } });
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await h?.close();
});

async function needsSetupServer(opts: { requireBearer?: string } = {}) {
  const mcp = await startMcpServer({ tools: SAMPLE_TOOLS, ...opts });
  servers.push(mcp);
  const rs = await register(h, mcp.url);
  if (!opts.requireBearer) expect((await rescan(h, rs.id)).status).toBe(200);
  return { rs, mcp };
}

const server = (id: string) => h.admin("GET", `/svc/resource-servers/${id}`);

describe("rescan mcp_token", () => {
  it.each(UNSENDABLE)("with %s: 400 naming the field, the server unchanged", async (_what, token) => {
    const { rs, mcp } = await needsSetupServer();
    const before = await server(rs.id);
    expect(before.body.state).toBe("needs_setup");
    const seen = mcp.authorizations.length;

    const r = await rescan(h, rs.id, h.adminToken, { mcp_token: token });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: MESSAGE });

    expect(await server(rs.id)).toMatchObject({ status: 200, body: before.body });
    expect(mcp.authorizations.length).toBe(seen); // the upstream was never called
  });

  it("the service refuses it too (for callers other than REST), before claiming the server", async () => {
    const { rs } = await needsSetupServer();
    const before = await h.db.resourceServer.findUniqueOrThrow({ where: { id: rs.id } });
    const actor = { userId: h.ownerId, tenantId: h.workspaceId, role: "owner" as const };
    const refused = await h.services.lifecycle.scans.rescan(actor, rs.id, { mcp_token: "\u20ac" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: "bad_request", message: MESSAGE });
    expect(await h.db.resourceServer.findUniqueOrThrow({ where: { id: rs.id } })).toEqual(before);
  });

  it("a token of every visible ASCII character kind is forwarded as is", async () => {
    const token = "aZ09-._~+/=!#$%&'*:;<>?@[]^`{|}\"(),\\";
    const { rs, mcp } = await needsSetupServer({ requireBearer: token });
    const r = await rescan(h, rs.id, h.adminToken, { mcp_token: token });
    expect(r.status, r.text).toBe(200);
    expect(mcp.authorizations).toContain(`Bearer ${token}`);
  });

  it("an empty token is still its own 400", async () => {
    const { rs } = await needsSetupServer();
    const r = await rescan(h, rs.id, h.adminToken, { mcp_token: "" });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: "mcp_token: must not be empty" });
  });
});
