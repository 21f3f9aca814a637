// OAuth endpoints (RFC 6749 token, RFC 7662 introspection, RFC 7009 revocation): thin adapters.
// Each parses the form (zod: a flat record of strings; repeated names become arrays and are
// judged by the module), reads the Authorization header, calls one module method and answers.
// The router parses its own form bodies and installs its own error handler (rest/oauth-errors.ts),
// so every failure on these paths, body-parser ones included, answers in the OAuth shape.
import { Router, type Request, type RequestHandler } from "express";
import { z } from "zod";
import { oauthError, type ClientCredentialsInput, type IntrospectionEndpoint, type RevocationEndpoint, type TokenEndpoint } from "../modules/oauth";
import { basicCredentialsOf } from "./basic-auth";
import { sendEmpty, sendJson } from "./oauth-response";
import { oauthErrorHandler } from "./oauth-errors";
import { rejectUnsafeInput } from "./input-hygiene";
import { oauthFormBody } from "./oauth-form";
import type { Logger } from "../shared/logger";

/** application/x-www-form-urlencoded parameters; a repeated name arrives as an array. */
const formSchema = z.record(z.string(), z.union([z.string(), z.array(z.string())]));

/**
 * RFC 6749 §3.2: the token endpoint (and, by reference, §2 of RFC 7009/7662) takes a form POST.
 * The form parser (rest/oauth-form.ts) sets req.body exactly when the request carries a form body.
 */
function formParams(req: Request): Record<string, unknown> {
  if (req.body === undefined) throw oauthError("invalid_request", "body is not application/x-www-form-urlencoded");
  const parsed = formSchema.safeParse(req.body ?? {});
  if (!parsed.success) throw oauthError("invalid_request", "form parameters are not text");
  return parsed.data;
}

function clientCredentials(req: Request): ClientCredentialsInput {
  const basic = basicCredentialsOf(req);
  return { basic, malformedAuthorization: req.headers.authorization !== undefined && !basic, params: formParams(req) };
}

export interface OAuthEndpoints {
  token: TokenEndpoint;
  introspection: IntrospectionEndpoint;
  revocation: RevocationEndpoint;
}

/**
 * The form, then input hygiene (NUL, unpaired surrogates in the body, query or Basic credentials),
 * as one middleware: every router layer costs a path match on each request that passes it.
 */
const formInput: RequestHandler = oauthFormBody(rejectUnsafeInput);

const OAUTH_FORM_PATHS = ["/oauth/token", "/oauth/introspect", "/oauth/revoke"];

export function oauthRouter(endpoints: OAuthEndpoints, logger: Logger): Router {
  const r = Router();
  // The form runs inside each POST route, not in a router layer above them: a `use` layer on a
  // path rewrites req.url around its handler (a second URL parse per request) and is one more
  // path match (docs/benchmarks.md "Round 2"). Most frequent path first: routes are matched in order.
  r.post("/oauth/introspect", formInput, (req, res) => {
    const result = endpoints.introspection.introspect({ basic: basicCredentialsOf(req), params: formParams.bind(undefined, req) });
    // Usually answered synchronously from memory; Express 5 handles the returned promise otherwise.
    if (result instanceof Promise) return result.then((r) => sendJson(res, r));
    sendJson(res, result);
  });
  r.post("/oauth/token", formInput, async (req, res) => {
    sendJson(res, await endpoints.token.exchange(clientCredentials(req)));
  });
  r.post("/oauth/revoke", formInput, async (req, res) => {
    await endpoints.revocation.revoke(clientCredentials(req));
    sendEmpty(res);
  });
  // Other methods on these paths get the same form and hygiene checks as before (then fall through).
  r.use(OAUTH_FORM_PATHS, formInput);
  r.use(oauthErrorHandler(logger));
  return r;
}
