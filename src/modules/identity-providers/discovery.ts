// The provider's OpenID Connect Discovery document (OIDC Discovery 1.0 §4), fetched through the
// SSRF guard (src/shared/outbound/fetch-json.ts: resolved and pinned addresses, no redirects, only
// 200, size cap, deadline) and checked: `issuer` equal byte for byte to the configured one (§4.3),
// the three endpoints Toolgate uses, and PKCE S256 (the MCP authorization spec's client rule: an
// OIDC provider that does not list code_challenge_methods_supported is refused). Each refusal names
// what failed, for the admin's 400.
import { fetchJsonDocument, type OutboundFetchOptions } from "../../shared/outbound/fetch-json";

export const DISCOVERY_MAX_BYTES = 64 * 1024;
const REUSE = { defaultSeconds: 0, maxSeconds: 0 } as const;

export interface ProviderMetadata {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
  /** token_endpoint_auth_methods_supported when the document lists it (absent: OIDC's default, client_secret_basic). */
  tokenEndpointAuthMethods?: string[];
}

export type DiscoveryResult = { ok: true; metadata: ProviderMetadata } | { ok: false; reason: string };

/** OIDC Discovery §4: the issuer with any trailing "/" removed, then /.well-known/openid-configuration. */
export function discoveryUrl(issuer: string): URL {
  return new URL(`${issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`);
}

function endpoint(doc: Record<string, unknown>, name: string, issuer: string): string {
  const value = doc[name];
  if (typeof value !== "string") throw new Error(`${name} is missing`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} is not a URL`);
  }
  // http only where the issuer itself is http (loopback tests, TOOLGATE_SCAN_ALLOW_PRIVATE).
  if (url.protocol !== "https:" && !(url.protocol === "http:" && new URL(issuer).protocol === "http:")) throw new Error(`${name} is not https`);
  return value;
}

export async function discover(issuer: string, opts: OutboundFetchOptions): Promise<DiscoveryResult> {
  const fetched = await fetchJsonDocument(discoveryUrl(issuer), opts, { maxBytes: DISCOVERY_MAX_BYTES, reuse: REUSE, what: "the discovery document" });
  if (!fetched.ok) return { ok: false, reason: fetched.reached ? fetched.reason : `${fetched.reason} (unreachable)` };
  const doc = fetched.json;
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return { ok: false, reason: "the discovery document is not a JSON object" };
  const d = doc as Record<string, unknown>;
  if (d.issuer !== issuer) return { ok: false, reason: `issuer mismatch: the discovery document says ${JSON.stringify(d.issuer)}, not ${JSON.stringify(issuer)}` };
  try {
    const metadata: ProviderMetadata = {
      issuer,
      authorizationEndpoint: endpoint(d, "authorization_endpoint", issuer),
      tokenEndpoint: endpoint(d, "token_endpoint", issuer),
      jwksUri: endpoint(d, "jwks_uri", issuer),
    };
    const authMethods = d.token_endpoint_auth_methods_supported;
    if (Array.isArray(authMethods)) metadata.tokenEndpointAuthMethods = authMethods.filter((m): m is string => typeof m === "string");
    const methods = d.code_challenge_methods_supported;
    if (!Array.isArray(methods) || !methods.includes("S256")) return { ok: false, reason: "no S256: code_challenge_methods_supported does not list S256 (PKCE is required)" };
    const responseTypes = d.response_types_supported;
    if (Array.isArray(responseTypes) && !responseTypes.includes("code")) return { ok: false, reason: "response_types_supported does not list code" };
    return { ok: true, metadata };
  } catch (e) {
    return { ok: false, reason: `the discovery document: ${(e as Error).message}` };
  }
}
