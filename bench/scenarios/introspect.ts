// POST /oauth/introspect of a valid token by its resource server (Basic rs_id:secret): what an
// MCP server does on every call it does not cache itself. Target: at least 60% of the baseline.
import type { Scenario } from "../scenario";
import { createClient, createServer, getToken, introspectionRequest } from "../oauth-fixtures";
import { peerIntrospectionRequest } from "../peer";

const scenario: Scenario = {
  name: "introspect (valid token)",
  target: 0.6,
  // Issue 13: at least 1.1x node-oidc-provider's introspection of an opaque token.
  peer: { name: "oidc-provider introspection", target: 1.1, setup: peerIntrospectionRequest },
  async setup(ctx) {
    const server = await createServer(ctx, "introspect");
    const client = await createClient(ctx, server.id);
    const token = await getToken(ctx, client);
    return introspectionRequest(server, token);
  },
};
export default scenario;
