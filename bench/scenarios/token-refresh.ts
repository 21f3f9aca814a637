// POST /oauth/token, grant_type=refresh_token for a signed-in user, without openid: the access
// token and the rotated refresh token. The reference for token-openid.ts in the same run (the
// difference between the two is the ID token). No target: it writes a row per request.
import type { Scenario } from "../scenario";
import { refreshRequest } from "../refresh-fixtures";

const scenario: Scenario = {
  name: "token (refresh_token, user)",
  setup: (ctx) => refreshRequest(ctx, "refresh", "files:read"),
};
export default scenario;
