// The reference: a constant JSON object through the same Express app and middleware (GET, no
// body, no authentication). Every other scenario's req/s is reported as a ratio of this one.
import type { Scenario } from "../scenario";

const scenario: Scenario = {
  name: "baseline",
  async setup() {
    return { method: "GET", path: "/bench/baseline" };
  },
};
export default scenario;
