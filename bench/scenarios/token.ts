// POST /oauth/token, grant_type=client_credentials, client_secret_basic, one scope: the path a
// workload takes to get a token. Target: at least 30% of the baseline (issue 2 set 35% when the
// baseline route cost ~133 µs of CPU; since requests are born with Express's prototypes it costs
// ~55 µs while the ES256 signature stays ~35 µs, and 30% of the faster baseline is still more
// tokens a second than 35% of the old one: docs/benchmarks.md, Round 3).
import type { Scenario } from "../scenario";
import { createClient, createServer } from "../oauth-fixtures";
import { peerTokenRequest } from "../peer";

const scenario: Scenario = {
  name: "token (client_credentials)",
  target: 0.3,
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
