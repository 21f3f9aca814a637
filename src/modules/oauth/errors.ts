// The public text of every OAuth error this server sends. One description per failure class
// (DESIGN.md "Errors"): the text never tells a prober which check failed, so it is fixed per
// code here and nowhere else.
import { OAuthError, type OAuthErrorCode } from "../../shared/errors";

export const OAUTH_ERROR_DESCRIPTIONS: Record<OAuthErrorCode, string> = {
  invalid_request: "the request is missing a required parameter, repeats a parameter, or is otherwise malformed",
  invalid_client: "client authentication failed",
  invalid_grant: "the authorization grant is invalid, expired, revoked, or was issued to another client",
  unauthorized_client: "the client is not allowed to use this grant type",
  unsupported_grant_type: "the grant type is not supported by this authorization server",
  invalid_scope: "the requested scope is invalid, unknown, or not allowed for this client",
  invalid_target: "the requested resource is invalid, unknown, or not available to this client",
  unsupported_token_type: "the token type is not supported",
  access_denied: "access denied",
  server_error: "internal error",
  temporarily_unavailable: "the authorization server cannot answer right now; try again shortly",
};

/** The OAuthError for `code` with its one public description (status: 401 for invalid_client, else 400). */
export function oauthError(code: OAuthErrorCode, status?: number): OAuthError {
  return new OAuthError(code, OAUTH_ERROR_DESCRIPTIONS[code], status);
}
