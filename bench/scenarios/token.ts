// POST /oauth/token, grant_type=client_credentials, client_secret_basic, one scope: the path a
// workload takes to get a token. Target: at least 35% of the baseline (issue 2). (Round 3 of
// issue 13 made the baseline 2.4x cheaper and the ratio fell to 0.33-0.39; Round 4's signature off
// the event loop took it to ~0.6: docs/benchmarks.md.)
import type { Scenario } from "../scenario";
import { createClient, createServer } from "../oauth-fixtures";
import { peerTokenRequest } from "../peer";

const scenario: Scenario = {
  name: "token (client_credentials)",
  target: 0.35,
  // Issue 13: at least 1.1x node-oidc-provider's client-credentials grant issuing ES256 JWTs.
  peer: { name: "oidc-provider token (ES256 JWT)", target: 1.1, setup: peerTokenRequest },
  async setup(ctx) {
    const server = await createServer(ctx, "token");
    const client = await createClient(ctx, server.id);
    return {
      method: "POST",
      path: "/oauth/token",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString("base64")}`,
      },
      body: "grant_type=client_credentials&scope=files%3Aread",
    };
  },
};
export default scenario;
