export { KeyStore, SIGNING_ALG, type RotateResult } from "./key-store";
export { JwtService, ACCESS_TOKEN_TYP, ADMIN_AUDIENCE, type AccessTokenClaims, type AdminTokenClaims } from "./jwt";
export { MAX_TOKEN_LIFETIME_S, publishedKeysAt, signingKeyAt } from "./key-schedule";
