// Public discovery documents: RFC 8414 authorization server metadata, the OpenID Connect
// Discovery document (the same plus OIDC's members, docs/openid-provider.md) and the RFC 7517 key
// set. Unauthenticated, read-only, with permissive CORS so browser-based MCP clients (e.g. the
// Inspector) can read them. Why each: docs/decisions/0007-discovery.md.
import { Router } from "express";
import { publicCors } from "./public-cors";
import type { ServerMetadata } from "../modules/oauth";
import type { KeyStore } from "../modules/tokens";

const cors = publicCors("GET, OPTIONS", "MCP-Protocol-Version, Accept");

export const OAUTH_METADATA_PATH = "/.well-known/oauth-authorization-server";
export const OPENID_CONFIGURATION_PATH = "/.well-known/openid-configuration";
export const METADATA_PATHS = [OAUTH_METADATA_PATH, OPENID_CONFIGURATION_PATH] as const;

/**
 * Where clients look for the metadata of `issuer` on this server. For an issuer with a path
 * (TOOLGATE_PUBLIC_URL https://host/auth behind a proxy) RFC 8414 §3.1 inserts the well-known
 * segment before the path (/.well-known/oauth-authorization-server/auth, and MCP clients try the
 * same for openid-configuration, docs/decisions/0007-discovery.md); the plain locations are served
 * as well, for proxies that strip the prefix.
 */
export function metadataPaths(issuer: string): string[] {
  const path = new URL(issuer).pathname.replace(/\/+$/, "");
  return path ? [...METADATA_PATHS, ...METADATA_PATHS.map((p) => p + path)] : [...METADATA_PATHS];
}
export const JWKS_PATHS = ["/oauth/jwks", "/.well-known/jwks.json", "/oauth2/jwks"] as const;

/**
 * JWKS max-age stays well below the default key-rotation lead (300 s, `toolgate keys rotate`), so a
 * relying party that honours it fetches a rotated-in key before that key signs anything.
 */
const JWKS_MAX_AGE_S = 60;
const METADATA_MAX_AGE_S = 300;

export function discoveryRouter(metadata: ServerMetadata, openIdConfiguration: ServerMetadata, keys: KeyStore): Router {
  const r = Router();
  // Fixed for the life of the process.
  const oauthBody = JSON.stringify(metadata);
  const oidcBody = JSON.stringify(openIdConfiguration);
  for (const path of metadataPaths(metadata.issuer)) {
    const body = path.startsWith(OPENID_CONFIGURATION_PATH) ? oidcBody : oauthBody;
    r.options(path, cors);
    r.get(path, cors, (_req, res) => {
      res.type("application/json").set("Cache-Control", `public, max-age=${METADATA_MAX_AGE_S}`).send(body);
    });
  }
  for (const path of JWKS_PATHS) {
    r.options(path, cors);
    r.get(path, cors, (_req, res) => {
      res.set("Cache-Control", `public, max-age=${JWKS_MAX_AGE_S}`).json(keys.jwks());
    });
  }
  return r;
}
