// POST /oauth/introspect of a USER token: the answer's scope is re-resolved on every call against
// the user's current role bindings (direct and through a group), from memory. Target: at least
// 60% of the baseline, the same as machine tokens.
import type { Scenario } from "../scenario";
import { createServer, introspectionRequest } from "../oauth-fixtures";
import { peerIntrospectionRequest } from "../peer";
import { userToken } from "../signin-fixtures";

const scenario: Scenario = {
  name: "introspect (user token, resolved scopes)",
  target: 0.6,
  // Issue 13: at least 1.1x node-oidc-provider's introspection of an opaque token.
  peer: { name: "oidc-provider introspection", target: 1.1, setup: peerIntrospectionRequest },
  async setup(ctx) {
    const server = await createServer(ctx, "introspect-user");
    const redirectUri = "http://127.0.0.1/callback";
    const client = await ctx.admin("POST", `/svc/resource-servers/${server.id}/clients`, {
      client_name: "bench app",
      kind: "human_app",
      redirect_uris: [redirectUri],
      allowed_scopes: ["files:read", "files:write"],
    });
    // The seeded owner's workspace, as the admin JWT names it.
    const workspace = JSON.parse(Buffer.from(ctx.adminToken.split(".")[1]!, "base64url").toString()).workspace_id as string;
    const email = `bench-${Math.random().toString(36).slice(2, 8)}@example.test`;
    const password = "bench-password-123";
    const user = await ctx.admin("POST", `/uflow/v2/tenants/${workspace}/users`, { email, username: "bench", password });
    const reader = await ctx.admin("POST", "/svc/authmgr/roles", { name: `reader-${email}`, grants: [{ resource_server_id: server.id, scope_ids: ["files:read"] }] });
    const writer = await ctx.admin("POST", "/svc/authmgr/roles", { name: `writer-${email}`, grants: [{ resource_server_id: server.id, scope_ids: ["files:write"] }] });
    await ctx.admin("POST", `/uflow/v2/users/${user.id}/role-bindings`, { tenant_id: workspace, role_id: reader.id });
    const group = await ctx.admin("POST", "/uflow/v2/groups", { name: `writers-${email}` });
    await ctx.admin("POST", `/uflow/v2/groups/${group.id}/members`, { user_id: user.id });
    await ctx.admin("POST", `/uflow/v2/groups/${group.id}/role-bindings`, { tenant_id: workspace, role_id: writer.id });
    const token = await userToken(ctx, {
      clientId: client.client_id,
      clientSecret: client.client_secret,
      redirectUri,
      resource: server.resource_url,
      email,
      password,
      scope: "files:read files:write",
    });
    return introspectionRequest(server, token);
  },
};
export default scenario;
