// POST /oauth/token, grant_type=refresh_token with scope openid: an ID token (RS256, the default
// of OpenID Connect Registration) beside the access token and the rotated refresh token. Compared
// with token-refresh.ts (same grant without openid) in the same run: docs/benchmarks.md.
import type { Scenario } from "../scenario";
import { refreshRequest } from "../refresh-fixtures";

const scenario: Scenario = {
  name: "token (refresh_token + openid: ID token)",
  setup: (ctx) => refreshRequest(ctx, "openid", "openid profile email files:read"),
};
export default scenario;
