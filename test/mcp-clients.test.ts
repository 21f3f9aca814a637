// The official MCP TypeScript SDK clients, unmodified (v1 @modelcontextprotocol/sdk and v2
// @modelcontextprotocol/client), against SDK-built MCP servers that Toolgate protects (RFC 9728
// metadata pointing at Toolgate, every token introspected): each client discovers Toolgate,
// registers (DCR), or uses its metadata-document URL (CIMD), or a pre-registered public client_id,
// signs a user in (the pages driven over HTTP), then lists and calls tools. One DCR registration
// serves two servers of two workspaces; revoking its connection to one leaves the other working.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError as UnauthorizedV1 } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2, UnauthorizedError as UnauthorizedV2 } from "@modelcontextprotocol/client";
import { startToolgate, type Harness } from "./helpers/harness";
import { setUpSignIn } from "./helpers/signin-flow";
import { startProtectedMcpServer, type ProtectedMcpServer } from "./helpers/protected-mcp";
import { SignInProvider } from "./helpers/sdk-oauth-provider";
import { loopbackCertificate, type TestCertificate } from "./helpers/tls";
import { CimdHost } from "./helpers/cimd-host";

const REDIRECT = "http://127.0.0.1:47913/callback";
const ANN = { email: "ann@a.example.test", password: "ann-password-123" };
const BEN = { email: "ben@b.example.test", password: "ben-password-123" };

let h: Harness;
let cert: TestCertificate;
let host: CimdHost;
let mcpA: ProtectedMcpServer;
let mcpB: ProtectedMcpServer;
let a: Awaited<ReturnType<typeof setUpSignIn>>;
let b: Awaited<ReturnType<typeof setUpSignIn>>;
let adminB: string;

/** An MCP server protected by Toolgate in the workspace of `adminToken`, with `user` holding its scopes. */
async function protectedServer(name: string, scopes: string[], user: typeof ANN, adminToken: string) {
  const mcp = await startProtectedMcpServer({ toolgate: h.url, issuer: h.config.publicUrl, scopes, name });
  const setup = await setUpSignIn(h.url, adminToken, { name, scopes, users: [user], redirectUri: REDIRECT, publicBaseUrl: mcp.origin });
  expect(setup.resource).toBe(mcp.resource);
  mcp.protect({ rsId: setup.serverId, secret: setup.introspectionSecret });
  return { mcp, setup };
}

beforeAll(async () => {
  cert = loopbackCertificate();
  host = await CimdHost.start(cert);
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1", TOOLGATE_OUTBOUND_CA_FILE: cert.certFile } });
  ({ mcp: mcpA, setup: a } = await protectedServer("Notes", ["notes:read", "notes:write"], ANN, h.adminToken));
  adminB = (await h.createWorkspace("owner@b.example.test")).token;
  ({ mcp: mcpB, setup: b } = await protectedServer("Files", ["files:read"], BEN, adminB));
});
afterAll(async () => {
  await mcpA?.close();
  await mcpB?.close();
  await h?.close();
  await host?.close();
});

type Sdk = "v1" | "v2";
type AnyClient = { listTools(): Promise<{ tools: Array<{ name: string }> }>; callTool(p: { name: string; arguments?: Record<string, unknown> }): Promise<any>; close(): Promise<void> };

/**
 * What an application does with the SDK: connect; on UnauthorizedError (the SDK has registered and
 * sent the user to sign in) hand the callback to the transport, then connect again.
 */
async function connect(sdk: Sdk, mcp: ProtectedMcpServer, provider: SignInProvider): Promise<AnyClient> {
  const url = new URL(mcp.resource);
  const make = () =>
    sdk === "v1"
      ? { client: new ClientV1({ name: "e2e-v1", version: "1.0.0" }), transport: new TransportV1(url, { authProvider: provider as never }) }
      : { client: new ClientV2({ name: "e2e-v2", version: "1.0.0" }), transport: new TransportV2(url, { authProvider: provider as never }) };
  const first = make();
  try {
    await first.client.connect(first.transport as never);
    return first.client as unknown as AnyClient;
  } catch (e) {
    if (!(e instanceof UnauthorizedV1 || e instanceof UnauthorizedV2)) throw e;
  }
  const callback = provider.callback;
  if (!callback) throw new Error("the SDK did not ask for a sign-in");
  const second = make();
  if (sdk === "v1") await (second.transport as TransportV1).finishAuth(callback.searchParams.get("code")!);
  else await (second.transport as TransportV2).finishAuth(callback.searchParams);
  await second.client.connect(second.transport as never);
  return second.client as unknown as AnyClient;
}

async function whoami(client: AnyClient): Promise<string> {
  const r = await client.callTool({ name: "whoami", arguments: { note: "e2e" } });
  return r.content[0].text as string;
}

const provider = (user: typeof ANN, over: Partial<ConstructorParameters<typeof SignInProvider>[0]> = {}) =>
  new SignInProvider({ publicUrl: h.config.publicUrl, serverUrl: h.url, user, redirectUrl: REDIRECT, ...over });

describe.each<Sdk>(["v1", "v2"])("SDK %s client, unmodified", (sdk) => {
  it("connects through dynamic client registration, lists and calls tools", async () => {
    const p = provider(ANN, { clientName: `Claude-like ${sdk}` });
    const client = await connect(sdk, mcpA, p);
    expect(p.clientId).toMatch(/^tgc_/);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["whoami"]);
    expect(await whoami(client)).toBe(`${a.userIds[0]} via ${p.clientId} with notes:read notes:write (e2e)`);
    await client.close();
    const row = await h.db.client.findUniqueOrThrow({ where: { clientId: p.clientId! } });
    expect(row).toMatchObject({ registrationMode: "dcr", tenantId: null, clientName: `Claude-like ${sdk}` });
  });

  it("connects as a CIMD client (its metadata document on loopback https)", async () => {
    const path = `/${sdk}/client.json`;
    const url = host.serve(path, {
      body: {
        client_id: `${host.origin}${path}`,
        client_name: `CIMD ${sdk}`,
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: "none",
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
      },
    });
    const p = provider(ANN, { clientMetadataUrl: url });
    const client = await connect(sdk, mcpA, p);
    expect(p.clientId).toBe(url);
    expect(await whoami(client)).toBe(`${a.userIds[0]} via ${url} with notes:read notes:write (e2e)`);
    await client.close();
    expect(host.hitsOf(path)).toBeGreaterThan(0);
  });

  it("connects as a pre-registered public client (no secret)", async () => {
    const reg = await h.admin("POST", `/svc/resource-servers/${a.serverId}/clients`, {
      client_name: `CLI ${sdk}`,
      kind: "cli",
      redirect_uris: [REDIRECT],
      allowed_scopes: ["notes:read", "notes:write"],
      token_endpoint_auth_method: "none",
    });
    expect(reg.status).toBe(201);
    const p = provider(ANN, { preRegistered: { client_id: reg.body.client_id } });
    const client = await connect(sdk, mcpA, p);
    expect(p.clientId).toBe(reg.body.client_id); // nothing registered: the SDK used the given client_id
    expect(await whoami(client)).toBe(`${a.userIds[0]} via ${reg.body.client_id} with notes:read notes:write (e2e)`);
    await client.close();
  });
});

describe("one registration, two servers, two workspaces", () => {
  it("the SDK reuses its client for a second server; revoking one connection leaves the other working", async () => {
    const annP = provider(ANN);
    const toA = await connect("v2", mcpA, annP);
    expect(await whoami(toA)).toContain(annP.clientId!);
    // Same registration (the provider hands it back), another server and workspace, another user.
    const benP = provider(BEN, { preRegistered: { client_id: annP.clientId! } });
    const toB = await connect("v2", mcpB, benP);
    expect(await whoami(toB)).toBe(`${b.userIds[0]} via ${annP.clientId} with files:read (e2e)`);
    expect(await h.db.client.count({ where: { clientId: annP.clientId! } })).toBe(1);
    expect((await h.db.connection.findMany({ where: { clientId: annP.clientId! } })).map((c) => c.resourceServerId).sort()).toEqual([a.serverId, b.serverId].sort());

    const revoked = await h.request("POST", `/svc/resource-servers/${b.serverId}/clients/${annP.clientId}/revoke`, { token: adminB });
    expect(revoked.status).toBe(200);
    // B refuses the token at once (the SDK then tries to re-authorize and fails); A still answers.
    await expect(whoami(toB)).rejects.toThrow();
    expect(await whoami(toA)).toContain(annP.clientId!);
    await toA.close();
    await toB.close().catch(() => undefined);
  });
});
