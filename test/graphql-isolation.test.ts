// Two workspaces over the graph: nothing of one is readable or changeable with the other's JWT.
// Another workspace's id behaves exactly like an unknown id (null on reads, NOT_FOUND on writes).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, type Harness } from "./helpers/harness";
import { codesOf, gql } from "./graphql/client";
import {
  PreRegisterClientDocument,
  RegisterResourceServerDocument,
  ResourceServerDocument,
  ResourceServersDocument,
  RotateIntrospectionSecretDocument,
  WorkspaceDocument,
} from "./graphql/generated/graphql";

let h: Harness;
let other: { workspaceId: string; token: string };
let aServer: { id: string; secret: string; clientId: string };
let bServerId: string;

async function registerAs(token: string, name: string, url: string) {
  const r = await gql(h, RegisterResourceServerDocument, { input: { name, publicBaseUrl: url, protectedBasePath: "/mcp", scopesSupported: ["x:read"] } }, { token });
  expect(r.errors).toBeUndefined();
  return r.data!.registerResourceServer;
}

beforeAll(async () => {
  h = await startToolgate();
  other = await h.createWorkspace("owner-b@example.test");
  // The same URL in both workspaces is allowed (resource_url is unique per workspace).
  const a = await registerAs(h.adminToken, "A server", "https://shared.example.test");
  const client = await gql(h, PreRegisterClientDocument, { resourceServerId: a.resourceServer.id, input: { clientName: "A client", redirectUris: [] } });
  expect(client.errors).toBeUndefined();
  aServer = { id: a.resourceServer.id, secret: a.introspectionSecret, clientId: client.data!.preRegisterClient.clientId };
  bServerId = (await registerAs(other.token, "B server", "https://shared.example.test")).resourceServer.id;
});
afterAll(async () => h?.close());

describe("workspace isolation in the graph", () => {
  it("each JWT sees its own workspace", async () => {
    expect((await gql(h, WorkspaceDocument, {})).data!.workspace.id).toBe(h.workspaceId);
    expect((await gql(h, WorkspaceDocument, {}, { token: other.token })).data!.workspace.id).toBe(other.workspaceId);
  });

  it("lists only the caller's servers and clients", async () => {
    const b = await gql(h, ResourceServersDocument, {}, { token: other.token });
    expect(b.data!.resourceServers.map((s) => s.id)).toEqual([bServerId]);
    expect(b.data!.resourceServers[0]!.clients).toEqual([]);
    expect(b.data!.resourceServers[0]!.clientCounts.total).toBe(0);
    const a = await gql(h, ResourceServersDocument, {});
    expect(a.data!.resourceServers.map((s) => s.id)).toEqual([aServer.id]);
  });

  it("answers null, never data, for the other workspace's server id", async () => {
    const r = await gql(h, ResourceServerDocument, { id: aServer.id }, { token: other.token });
    expect(r.errors).toBeUndefined();
    expect(r.data).toEqual({ resourceServer: null });
  });

  it("refuses to rotate the other workspace's secret (NOT_FOUND) and the secret keeps working", async () => {
    const r = await gql(h, RotateIntrospectionSecretDocument, { id: aServer.id }, { token: other.token });
    expect(r.data).toBeNull();
    expect(codesOf(r)).toEqual(["NOT_FOUND"]);
    const intro = await h.request("POST", "/oauth/introspect", { basic: [aServer.id, aServer.secret], form: { token: "x" } });
    expect(intro.status).toBe(200);
  });

  it("refuses to pre-register a client on the other workspace's server (NOT_FOUND), writing nothing", async () => {
    const before = await h.db.client.count();
    const r = await gql(h, PreRegisterClientDocument, { resourceServerId: aServer.id, input: { clientName: "intruder", redirectUris: [] } }, { token: other.token });
    expect(codesOf(r)).toEqual(["NOT_FOUND"]);
    expect(await h.db.client.count()).toBe(before);
  });

  it("keeps the nested clients and counts tenant-scoped even if a row points across workspaces", async () => {
    // Corrupt data on purpose: a client of workspace B attached to A's server. The graph's own
    // tenant filter must keep it out of A's view (the parent check alone would not).
    await h.db.client.create({
      data: {
        clientId: "tgc_cross_workspace",
        tenantId: other.workspaceId,
        resourceServerId: aServer.id,
        clientName: "B's stray client",
        kind: "m2m",
        registrationMode: "prereg",
        redirectUris: [],
        grantTypes: ["client_credentials"],
        allowedScopes: [],
      },
    });
    const a = await gql(h, ResourceServersDocument, {});
    const server = a.data!.resourceServers.find((s) => s.id === aServer.id)!;
    expect(server.clients.map((c) => c.clientId)).toEqual([aServer.clientId]);
    expect(server.clientCounts.total).toBe(1);
  });
});
