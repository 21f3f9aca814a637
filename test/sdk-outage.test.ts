// toolgate/sdk when Toolgate cannot be reached at start: the server starts anyway, denies every tool
// ("no policy"), and once Toolgate answers it pushes the manifest it could not push and enforces the
// policy — no restart. Toolgate sits behind a switchable reverse proxy (its public URL), as in
// production behind a load balancer.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startToolgate, type Harness } from "./helpers/harness";
import { readySample } from "./helpers/sdk-flow";
import { eventually } from "./helpers/eventually";
import { startSampleServer, type SampleServer } from "../examples/sample-mcp-server/server";

let h: Harness;
let proxy: Server;
let proxyUrl: string;
let up = false;
const warnings: string[] = [];

beforeAll(async () => {
  // The proxy forwards to Toolgate while `up`, else answers 503 like a load balancer with no backend.
  proxy = createServer((req, res) => {
    if (!up || !h) return void res.writeHead(503).end();
    const target = new URL(h.url);
    const fwd = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode!, r.headers);
      r.pipe(res);
    });
    req.pipe(fwd);
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1", TOOLGATE_PUBLIC_URL: proxyUrl } });
});
afterAll(async () => {
  await h?.close();
  proxy?.closeAllConnections();
  await new Promise((r) => proxy?.close(r));
});

describe("toolgate/sdk and a Toolgate outage at start", () => {
  it("starts, denies every tool while Toolgate is away, then pushes its manifest and enforces the policy", async () => {
    up = true;
    const rs = await readySample(h);
    // A machine token (through the proxy: the issuer is the proxy's URL).
    const bot = await h.admin("POST", `/svc/resource-servers/${rs.id}/clients`, { client_name: "bot", kind: "m2m", redirect_uris: [], grant_types: ["client_credentials"], allowed_scopes: ["notes:read"] });
    const tok = await h.request("POST", "/oauth/token", { form: { grant_type: "client_credentials", client_id: bot.body.client_id, client_secret: bot.body.client_secret, scope: "notes:read" } });
    expect(tok.status, tok.text).toBe(200);
    const manifestBefore = (await h.admin("GET", `/svc/resource-servers/${rs.id}/sdk-manifest-status`)).body.pushed_at;

    up = false;
    let sample: SampleServer | undefined;
    try {
      sample = await startSampleServer({
        port: rs.port,
        toolgate: { issuer: proxyUrl, resourceServerId: rs.id, introspectionSecret: rs.secret, policyRefreshMs: 100, logger: { error: (m) => warnings.push(m), warn: (m) => warnings.push(m) } },
      });
      expect(warnings).toEqual([expect.stringMatching(/^Toolgate could not be reached \(sdk-manifest answered 503\)/)]);
      expect(sample.guard!.filterTools([{ name: "list_notes" }], ["notes:read"])).toEqual([]);

      up = true;
      const call = () =>
        fetch(rs.resource, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${tok.body.access_token}` },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_notes", arguments: {} } }),
        });
      await eventually(async () => (await call()).status === 200, "the tool allowed once Toolgate is back");
      const status = (await h.admin("GET", `/svc/resource-servers/${rs.id}/sdk-manifest-status`)).body;
      expect(status).toMatchObject({ pushed: true, valid: true, tool_count: 5 });
      expect(status.pushed_at).not.toBe(manifestBefore);
      expect(warnings).toHaveLength(1); // one line for the outage, nothing per request
    } finally {
      await sample?.close();
    }
  });
});
