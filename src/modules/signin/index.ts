export { SignInService, type SignInPorts, type SignInStep } from "./signin-service";
export { authorizeQuerySchema, type AuthorizeQuery, type SignInClient, type SignInServer } from "./authorization-request";
export { AuthorizationCodes, CODE_LIFETIME_S, type CodeGrant, type RedeemOptions, type RedeemResult } from "./authorization-codes";
export { RefreshTokens, REFRESH_LIFETIME_S, REFRESH_GRACE_DEFAULT_S, type RefreshGrant, type RefreshRotationSettings } from "./refresh-tokens";
export { FirstTimeGrant } from "./first-time-grant";
export { TicketSealer } from "./tickets";
export { verifyPkce, s256 } from "./pkce";
export { redirectUriMatches } from "./redirect-uri";
export { createSignIn, type SignInDeps, type SignInServices } from "./create";
