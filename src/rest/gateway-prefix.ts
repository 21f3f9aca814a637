// The spec's gateway module prefix for authentication and users is `/svc/uflow/` ("Gateway module
// prefixes"), while its object-first endpoints are written `/uflow/v2/...` ("how the gateway
// prefixes combine with the /uflow/v2 and /v1 paths: not shown"). Both spellings are served: a
// request to `/svc/uflow/v2/...` is answered exactly as `/uflow/v2/...` (same routers, same admin
// JWT, same errors). The rewrite happens before any router sees the path.
import type { RequestHandler } from "express";

const ALIAS = "/svc/uflow/v2";

export const gatewayPrefixAlias: RequestHandler = (req, _res, next) => {
  const url = req.url;
  if (url.startsWith(ALIAS) && (url.length === ALIAS.length || url[ALIAS.length] === "/" || url[ALIAS.length] === "?")) {
    req.url = url.slice("/svc".length);
  }
  next();
};
