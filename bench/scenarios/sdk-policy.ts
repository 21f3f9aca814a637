// GET /svc/resource-servers/:id/sdk-policy with Basic rs_id:introspection_secret: what every
// resource-server runtime polls. The server is made `ready` through the public API (a real MCP
// scan of the sample server, started in this process only for the scan), so the answer is a full
// compiled policy, not the short pre-activation one. Target: at least 60% of the baseline.
import type { Scenario } from "../scenario";
import { startSampleServer } from "../../examples/sample-mcp-server/server";

const scenario: Scenario = {
  name: "sdk-policy (ready server, Basic auth)",
  target: 0.6,
  async setup(ctx) {
    const sample = await startSampleServer();
    try {
      const rs = await ctx.admin<{ id: string; introspection_secret: string }>("POST", "/svc/resource-servers", {
        name: "bench sdk-policy",
        public_base_url: sample.url,
        protected_base_path: "/mcp",
      });
      const base = `/svc/resource-servers/${rs.id}`;
      await ctx.admin("POST", `${base}/rescan`);
      await ctx.admin("POST", `${base}/scopes`, { id: "notes:read", name: "Read notes" });
      await ctx.admin("POST", `${base}/scopes`, { id: "notes:write", name: "Write notes" });
      await ctx.admin("PUT", `${base}/tool-scope-map`, {
        mappings: [
          { tool_name: "list_notes", scope_ids: ["notes:read"] },
          { tool_name: "read_note", scope_ids: ["notes:read"] },
          { tool_name: "create_note", scope_ids: ["notes:write"] },
          { tool_name: "delete_note", scope_ids: ["notes:write"] },
          { tool_name: "server_time", scope_ids: ["notes:read"] },
        ],
      });
      await ctx.admin("PUT", `${base}/access-policy`, { enabled: false });
      await ctx.admin("POST", `${base}/activate`);
      // A drift event too, so the document carries everything a runtime really receives.
      await ctx.admin("PUT", `${base}/tool-scope-map`, { mappings: [{ tool_name: "server_time", scope_ids: [] }] });
      return {
        method: "GET",
        path: `${base}/sdk-policy`,
        headers: { authorization: `Basic ${Buffer.from(`${rs.id}:${rs.introspection_secret}`).toString("base64")}` },
      };
    } finally {
      await sample.close();
    }
  },
};
export default scenario;
