// The SDK's per-call overhead: the same tools/call against the same server behind toolgate/sdk, in
// the same run as scenarios/sdk-overhead-open.ts. Warm caches: after the warm-up the token's
// verdict and the policy are in memory, so the guarded call adds a Map lookup, a policy decision
// and the filtered tools handler. Target: guarded p50 ≤ 1.3 × open p50 (docs/benchmarks.md).
import type { Scenario } from "../scenario";
import { CALL, HEADERS, PER_CALL_CONNECTIONS, sdkPair, stopSdkPair } from "../sdk-pair";
import { OPEN_MCP } from "./sdk-overhead-open";

const scenario: Scenario = {
  name: "mcp tools/call, toolgate/sdk",
  overheadOf: { scenario: OPEN_MCP, maxP50Ratio: 1.3 },
  async setup(ctx) {
    const p = await sdkPair(ctx);
    return { origin: p.guarded, originPid: p.pid, method: "POST", path: "/mcp", connections: PER_CALL_CONNECTIONS, headers: { ...HEADERS, authorization: `Bearer ${p.token}` }, body: CALL };
  },
  teardown: stopSdkPair,
};
export default scenario;
