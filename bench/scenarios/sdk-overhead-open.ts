// The reference of the SDK-overhead measurement: a tools/call (list_notes) against the sample MCP
// server without toolgate/sdk (bench/sdk-pair.ts). Compared with scenarios/sdk-overhead.ts.
import type { Scenario } from "../scenario";
import { CALL, HEADERS, PER_CALL_CONNECTIONS, sdkPair, stopSdkPair } from "../sdk-pair";

export const OPEN_MCP = "mcp tools/call, open server";

const scenario: Scenario = {
  name: OPEN_MCP,
  async setup(ctx) {
    const p = await sdkPair(ctx);
    return { origin: p.open, originPid: p.pid, method: "POST", path: "/mcp", connections: PER_CALL_CONNECTIONS, headers: HEADERS, body: CALL };
  },
  teardown: stopSdkPair,
};
export default scenario;
