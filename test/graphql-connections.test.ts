// GraphQL: connections of dcr/cimd clients on resource servers and on clients, and the
// revokeConnection mutation (the same service as the REST revoke): the connection turns revoked,
// the client's token for that server introspects inactive at once, and another workspace sees
// neither the connection nor the mutation's target.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, type Harness } from "./helpers/harness";
import { authorizeCode, exchangeCode, setUpSignIn } from "./helpers/signin-flow";
import { codesOf, gql } from "./graphql/client";

const REDIRECT = "http://127.0.0.1/callback";
const USER = { email: "gq@example.test", password: "gq-password-1234" };

let h: Harness;
let setup: Awaited<ReturnType<typeof setUpSignIn>>;
let clientId: string;
let accessToken: string;

beforeAll(async () => {
  h = await startToolgate();
  setup = await setUpSignIn(h.url, h.adminToken, { name: "Graph", scopes: ["g:read"], users: [USER], redirectUri: REDIRECT });
  const reg = await h.request("POST", "/oauth/register", { json: { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none", client_name: "Graph agent" } });
  clientId = reg.body.client_id;
  const flow = { publicUrl: h.config.publicUrl, serverUrl: h.url, clientId, redirectUri: REDIRECT, resource: setup.resource, scope: "", ...USER };
  const { code, verifier } = await authorizeCode(flow);
  accessToken = (await exchangeCode(flow, code, verifier)).body.access_token;
});
afterAll(async () => h?.close());

const CONNECTIONS = `query ($id: ID!, $status: ClientStatus) {
  resourceServer(id: $id) {
    connections(status: $status) { clientId status scopesGranted workspaceId lastConnectedAt client { clientName registrationMode workspaceId } }
  }
}`;
const REVOKE = `mutation ($rs: ID!, $client: String!) { revokeConnection(resourceServerId: $rs, clientId: $client) { clientId status revokedAt } }`;

describe("connections in the graph", () => {
  it("lists a server's connections with their client", async () => {
    const r = await gql<any, any>(h, CONNECTIONS, { id: setup.serverId });
    expect(r.errors).toBeUndefined();
    expect(r.data.resourceServer.connections).toEqual([
      {
        clientId,
        status: "approved",
        scopesGranted: ["g:read"],
        workspaceId: h.workspaceId,
        lastConnectedAt: expect.any(String),
        client: { clientName: "Graph agent", registrationMode: "dcr", workspaceId: null },
      },
    ]);
    expect((await gql<any, any>(h, CONNECTIONS, { id: setup.serverId, status: "revoked" })).data.resourceServer.connections).toEqual([]);
    // The counts include it: the pre-registered app and the connected client, both approved.
    const counts = await gql<any, any>(h, `query ($id: ID!) { resourceServer(id: $id) { clientCounts { total approved revoked } } }`, { id: setup.serverId });
    expect(counts.data.resourceServer.clientCounts).toEqual({ total: 2, approved: 2, revoked: 0 });
  });

  it("another workspace sees nothing and cannot revoke", async () => {
    const other = await h.createWorkspace("other@graph.example.test");
    const read = await gql<any, any>(h, CONNECTIONS, { id: setup.serverId }, { token: other.token });
    expect(read.data?.resourceServer ?? null).toBeNull();
    const revoke = await gql<any, any>(h, REVOKE, { rs: setup.serverId, client: clientId }, { token: other.token });
    expect(codesOf(revoke)).toEqual(["NOT_FOUND"]);
  });

  it("revokeConnection revokes it: the token for that server is inactive at once", async () => {
    const r = await gql<any, any>(h, REVOKE, { rs: setup.serverId, client: clientId });
    expect(r.errors).toBeUndefined();
    expect(r.data.revokeConnection).toEqual({ clientId, status: "revoked", revokedAt: expect.any(String) });
    const introspected = await h.request("POST", "/oauth/introspect", { basic: [setup.serverId, setup.introspectionSecret], form: { token: accessToken } });
    expect(introspected.body).toEqual({ active: false });
    // A pre-registered client is not a connection.
    const prereg = await gql<any, any>(h, REVOKE, { rs: setup.serverId, client: setup.clientId });
    expect(codesOf(prereg)).toEqual(["NOT_FOUND"]);
  });
});
