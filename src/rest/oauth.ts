// OAuth endpoints (RFC 6749 token, RFC 7662 introspection, RFC 7009 revocation): thin adapters.
// Each parses the form (zod: a flat record of strings; repeated names become arrays and are
// judged by the module), reads the Authorization header, calls one module method and answers.
// The routes parse their own form bodies and have their own error handler (rest/oauth-errors.ts),
// so every failure on these paths, body-parser ones included, answers in the OAuth shape.
import { Router, type IRouter, type Request, type RequestHandler } from "express";
import { z } from "zod";
import { OAuthError, oauthError, type ClientCredentialsInput, type IntrospectionEndpoint, type RevocationEndpoint, type TokenEndpoint } from "../modules/oauth";
import { basicCredentialsOf } from "./basic-auth";
import { sendEmpty, sendJson } from "./oauth-response";
import { oauthErrorHandler, type OAuthRefusalSink } from "./oauth-errors";
import { rejectUnsafeInput } from "./input-hygiene";
import { oauthFormBody } from "./oauth-form";
import { hasBody, wrongBodyType } from "./request-guards";

const FORM_TYPE = "application/x-www-form-urlencoded";
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

/**
 * A body of another type is 415 naming the one to send (issue 12), in the OAuth shape, before any
 * other check (client authentication included). A form body has set req.body: one comparison.
 */
function assertNotOtherBodyType(req: Request): void {
  if (req.body === undefined && hasBody(req)) throw new OAuthError("invalid_request", wrongBodyType(req, FORM_TYPE), 415);
}

/** The identity provider's /oauth2/* names of the same endpoints (the spec lists /oauth2/*; docs/openid-provider.md). */
const ALIASES = { "/oauth/introspect": "/oauth2/introspect", "/oauth/token": "/oauth2/token", "/oauth/revoke": "/oauth2/revoke" } as const;
const OAUTH_FORM_PATHS = [...Object.keys(ALIASES), ...Object.values(ALIASES)];

/**
 * Mounts the OAuth endpoints on `app` itself, not in a router of their own: a mounted router is
 * one more dispatch (its own handle(), layer walk and URL parse) on every token and introspection
 * request (docs/benchmarks.md "Round 2"). Mount them first: their error handler, mounted right
 * after them, sees only the errors of the layers above it, i.e. of these routes.
 */
export function mountOAuth(app: IRouter, endpoints: OAuthEndpoints, logger: Logger, onRefused?: OAuthRefusalSink): void {
  // The form runs inside each POST route, not in a layer above them: a `use` layer on a path
  // rewrites req.url around its handler (a second URL parse per request) and is one more path
  // match. Most frequent path first: routes are matched in order.
  const handlers: Record<keyof typeof ALIASES, RequestHandler> = {
    "/oauth/introspect": (req, res) => {
      assertNotOtherBodyType(req);
      const result = endpoints.introspection.introspect({ basic: basicCredentialsOf(req), params: formParams.bind(undefined, req) });
      // Usually answered synchronously from memory; Express 5 handles the returned promise otherwise.
      if (result instanceof Promise) return result.then((r) => sendJson(res, r));
      sendJson(res, result);
    },
    "/oauth/token": async (req, res) => {
      assertNotOtherBodyType(req);
      sendJson(res, await endpoints.token.exchange(clientCredentials(req)));
    },
    "/oauth/revoke": async (req, res) => {
      assertNotOtherBodyType(req);
      await endpoints.revocation.revoke(clientCredentials(req));
      sendEmpty(res);
    },
  };
  for (const [path, handler] of Object.entries(handlers)) app.post(path, formInput, handler);
  // The /oauth2/* aliases come after the three routes, so the hot paths match exactly as before.
  for (const [path, alias] of Object.entries(ALIASES)) app.post(alias, formInput, handlers[path as keyof typeof ALIASES]);
  app.use(oauthErrorHandler(logger, onRefused));
  // Other methods on these paths, in a router of their own as before: the same form and hygiene
  // checks, then Express's own answer (OPTIONS: 200 with Allow: POST, from the POST routes it
  // lists; anything else falls through to the 404). No POST gets here: the routes above answer.
  const other = Router();
  other.use(OAUTH_FORM_PATHS, formInput);
  other.post(OAUTH_FORM_PATHS, (_req, _res, next) => next());
  other.use(oauthErrorHandler(logger));
  app.use(other);
}
