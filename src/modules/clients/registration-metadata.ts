// Client metadata of dynamic registration (RFC 7591 §2), read field by field so every refusal names
// its field in the RFC 7591 §3.2.2 error: `invalid_redirect_uri` for a redirect URI, else
// `invalid_client_metadata`. Unknown members are ignored (RFC 7591 §2: "MUST ignore any client
// metadata sent by the client that it does not understand").
//
// What is accepted (docs/oauth.md "Dynamic client registration", notes on real clients in
// RFC 7591 §2-§3.2, MCP 2026-07-28 "Dynamic Client Registration"):
// - redirect_uris: https; loopback http (127.0.0.1, [::1], localhost: any port at use time,
//   RFC 8252 §7.3); a private-use scheme for application_type "native" (RFC 8252 §7.1, a
//   reverse-domain scheme such as com.example.app:/callback). Mixed sets are fine (VS Code registers
//   https and loopback together). Never a fragment, userinfo or wildcard.
// - grant_types authorization_code (required) and refresh_token: a registered client acts for a
//   signed-in user through a connection; client_credentials would be a token for nobody's workspace.
// - token_endpoint_auth_method none, client_secret_basic (the default, RFC 7591 §2) or
//   client_secret_post.
import { isLoopbackHttp } from "../../shared/loopback";
import { strictUrl } from "../../shared/urls";

export type RegistrationErrorCode = "invalid_redirect_uri" | "invalid_client_metadata";

/** A refused registration (RFC 7591 §3.2.2): 400 with this code and a description naming the field. */
export class RegistrationError extends Error {
  constructor(
    readonly error: RegistrationErrorCode,
    readonly description: string,
  ) {
    super(description);
  }
}

export const DCR_AUTH_METHODS = ["none", "client_secret_basic", "client_secret_post"] as const;
export type DcrAuthMethod = (typeof DCR_AUTH_METHODS)[number];
export const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";
export const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
/** ID-JAG −04 §8: the client metadata value of a client that can use Identity Assertion JWT Authorization Grants. */
export const ID_JAG_PROFILE = "urn:ietf:params:oauth:grant-profile:id-jag";
// jwt-bearer: an enterprise-managed agent presents ID-JAGs; token-exchange is what it does at its
// IdP (listed because ID-JAG −04 §8 requires it beside the profile), never served here.
export const DCR_GRANT_TYPES = ["authorization_code", "refresh_token", JWT_BEARER, TOKEN_EXCHANGE] as const;
const APPLICATION_TYPES = ["web", "native"] as const;

const MAX_REDIRECT_URIS = 20;
const MAX_TEXT = 200;
/**
 * Bidirectional embedding, override and isolate controls (U+202A-U+202E, U+2066-U+2069): in a
 * client_name shown to people they would reverse the text after it ("(name not verified)", the
 * redirect host). Refused in every text a client registers; the pages isolate what is shown anyway.
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/;
const BIDI_REFUSED = "must not contain bidirectional control characters (U+202A-U+202E, U+2066-U+2069)";
const SCOPE_TOKEN_RE = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
/** RFC 8252 §7.1: a private-use scheme is a reverse domain name (so it has a dot). */
const PRIVATE_USE_SCHEME_RE = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/;

/** The metadata as stored and echoed (RFC 7591 §3.2.1: "all registered metadata"). */
export interface ClientMetadata {
  redirect_uris: string[];
  token_endpoint_auth_method: DcrAuthMethod;
  grant_types: string[];
  response_types: string[];
  application_type: (typeof APPLICATION_TYPES)[number];
  client_name?: string;
  client_uri?: string;
  logo_uri?: string;
  scope?: string;
  software_id?: string;
  authorization_grant_profiles_supported?: string[];
  software_version?: string;
  /** OpenID RP-Initiated Logout §3.1: where the end_session_endpoint may send the browser back. */
  post_logout_redirect_uris?: string[];
  /** OpenID Connect Registration §2: the ID token's algorithm (default RS256). */
  id_token_signed_response_alg?: IdTokenAlg;
}

/** Algorithms ID tokens are signed with (src/modules/tokens: a key of each, in the JWKS). */
export const ID_TOKEN_ALGS = ["RS256", "ES256"] as const;
export type IdTokenAlg = (typeof ID_TOKEN_ALGS)[number];
/** OpenID Connect Registration §2: RS256 when a client registered none. */
export const DEFAULT_ID_TOKEN_ALG: IdTokenAlg = "RS256";

const metadataError = (field: string, message: string) => new RegistrationError("invalid_client_metadata", `${field}: ${message}`);

function optionalText(body: Record<string, unknown>, field: string): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string" || v.trim() === "" || v.length > MAX_TEXT) throw metadataError(field, `must be a non-empty string of at most ${MAX_TEXT} characters`);
  if (BIDI_CONTROLS.test(v)) throw metadataError(field, BIDI_REFUSED);
  return v.trim();
}

function optionalHttpsUrl(body: Record<string, unknown>, field: string): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  const r = typeof v === "string" && v.length <= 2048 ? strictUrl(v, { schemes: ["https:"], allowQuery: true }) : null;
  if (!r?.ok) throw metadataError(field, `must be an https URL${r && !r.ok ? `: it ${r.reason}` : ""}`);
  return r.href;
}

function stringList(body: Record<string, unknown>, field: string, fallback: readonly string[], allowed: readonly string[]): string[] {
  const v = body[field];
  if (v === undefined || v === null) return [...fallback];
  if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === "string")) throw metadataError(field, "must be a non-empty array of strings");
  const unknown = (v as string[]).filter((x) => !allowed.includes(x));
  if (unknown.length > 0) throw metadataError(field, `not supported: ${unknown.slice(0, 3).join(", ")} (supported: ${allowed.join(", ")})`);
  return [...new Set(v as string[])];
}

/** One redirect URI: its stored form, or the reason it is refused. */
function redirectUri(uri: unknown, native: boolean): { ok: true; href: string } | { ok: false; why: string } {
  if (typeof uri !== "string" || uri.length === 0 || uri.length > 2048) return { ok: false, why: "must be a URL string of at most 2048 characters" };
  if (uri.includes("*")) return { ok: false, why: "must not contain a wildcard" };
  if (BIDI_CONTROLS.test(uri)) return { ok: false, why: BIDI_REFUSED };
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(uri)?.[1]?.toLowerCase();
  if (scheme === "https" || scheme === "http") {
    const r = strictUrl(uri, { schemes: ["https:", "http:"], allowQuery: true });
    if (!r.ok) return { ok: false, why: r.reason };
    if (r.url.protocol === "http:" && !isLoopbackHttp(r.url)) return { ok: false, why: "uses http on a host other than 127.0.0.1, [::1] or localhost" };
    return { ok: true, href: r.href };
  }
  if (!scheme || !PRIVATE_USE_SCHEME_RE.test(scheme)) return { ok: false, why: "must use https, loopback http, or a private-use scheme such as com.example.app:" };
  if (!native) return { ok: false, why: `uses the private-use scheme ${scheme}:, allowed only with application_type native` };
  if (/[#\s\\]/.test(uri) || /^[^:]+:\/\/[^/]*@/.test(uri)) return { ok: false, why: "must not contain a fragment, spaces, backslashes or credentials" };
  if (!URL.canParse(uri)) return { ok: false, why: "is not a valid URI" };
  return { ok: true, href: uri };
}

/** Reads RFC 7591 client metadata; throws RegistrationError naming the first bad field. */
export function readClientMetadata(body: unknown): ClientMetadata {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw metadataError("body", "must be a JSON object of client metadata (RFC 7591 §2)");
  const b = body as Record<string, unknown>;
  const applicationType = b.application_type ?? "web";
  if (!APPLICATION_TYPES.includes(applicationType as never)) throw metadataError("application_type", "must be web or native");
  const method = b.token_endpoint_auth_method ?? "client_secret_basic";
  if (!DCR_AUTH_METHODS.includes(method as never)) throw metadataError("token_endpoint_auth_method", `not supported: must be one of ${DCR_AUTH_METHODS.join(", ")}`);
  const grantTypes = stringList(b, "grant_types", ["authorization_code"], DCR_GRANT_TYPES);
  if (!grantTypes.includes("authorization_code") && !grantTypes.includes(JWT_BEARER)) throw metadataError("grant_types", `must include authorization_code or ${JWT_BEARER}`);
  let profiles: string[] | undefined;
  if (b.authorization_grant_profiles_supported !== undefined && b.authorization_grant_profiles_supported !== null) {
    const list = b.authorization_grant_profiles_supported;
    if (!Array.isArray(list) || list.length > 10 || !list.every((p) => typeof p === "string" && p.length > 0 && p.length <= MAX_TEXT)) throw metadataError("authorization_grant_profiles_supported", "must be an array of at most 10 profile URIs");
    profiles = [...new Set(list as string[])];
    // ID-JAG −04 §8: a client listing the id-jag profile lists both grant types it uses.
    if (profiles.includes(ID_JAG_PROFILE) && !(grantTypes.includes(JWT_BEARER) && grantTypes.includes(TOKEN_EXCHANGE))) {
      throw metadataError("authorization_grant_profiles_supported", `a client listing ${ID_JAG_PROFILE} must list ${TOKEN_EXCHANGE} and ${JWT_BEARER} in grant_types`);
    }
  }
  const responseTypes = stringList(b, "response_types", ["code"], ["code"]);

  const uris = b.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) throw new RegistrationError("invalid_redirect_uri", "redirect_uris: is required: a non-empty array of redirect URIs");
  if (uris.length > MAX_REDIRECT_URIS) throw new RegistrationError("invalid_redirect_uri", `redirect_uris: at most ${MAX_REDIRECT_URIS}`);
  const redirectUris: string[] = [];
  for (const [i, uri] of uris.entries()) {
    const r = redirectUri(uri, applicationType === "native");
    if (!r.ok) throw new RegistrationError("invalid_redirect_uri", `redirect_uris[${i}]: ${r.why}`);
    if (!redirectUris.includes(r.href)) redirectUris.push(r.href);
  }

  let scope: string | undefined;
  if (b.scope !== undefined && b.scope !== null) {
    const tokens = typeof b.scope === "string" && b.scope.length <= 2000 ? b.scope.split(" ").filter(Boolean) : null;
    if (!tokens || tokens.length === 0 || !tokens.every((t) => SCOPE_TOKEN_RE.test(t))) throw metadataError("scope", "must be a space-separated list of scope tokens (RFC 6749 §3.3)");
    scope = [...new Set(tokens)].join(" ");
  }

  let postLogout: string[] | undefined;
  if (b.post_logout_redirect_uris !== undefined && b.post_logout_redirect_uris !== null) {
    const list = b.post_logout_redirect_uris;
    if (!Array.isArray(list) || list.length > MAX_REDIRECT_URIS) throw metadataError("post_logout_redirect_uris", `must be an array of at most ${MAX_REDIRECT_URIS} URIs`);
    postLogout = [];
    for (const [i, uri] of list.entries()) {
      const r = redirectUri(uri, applicationType === "native");
      if (!r.ok) throw metadataError(`post_logout_redirect_uris[${i}]`, r.why);
      if (!postLogout.includes(r.href)) postLogout.push(r.href);
    }
  }
  const alg = b.id_token_signed_response_alg;
  if (alg !== undefined && alg !== null && !ID_TOKEN_ALGS.includes(alg as IdTokenAlg)) throw metadataError("id_token_signed_response_alg", `not supported: must be one of ${ID_TOKEN_ALGS.join(", ")}`);

  const metadata: ClientMetadata = {
    redirect_uris: redirectUris,
    token_endpoint_auth_method: method as DcrAuthMethod,
    grant_types: grantTypes,
    response_types: responseTypes,
    application_type: applicationType as ClientMetadata["application_type"],
  };
  const optional = {
    client_name: optionalText(b, "client_name"),
    client_uri: optionalHttpsUrl(b, "client_uri"),
    logo_uri: optionalHttpsUrl(b, "logo_uri"),
    scope,
    software_id: optionalText(b, "software_id"),
    software_version: optionalText(b, "software_version"),
    post_logout_redirect_uris: postLogout,
    id_token_signed_response_alg: alg ?? undefined,
    authorization_grant_profiles_supported: profiles,
  };
  for (const [k, v] of Object.entries(optional)) if (v !== undefined) (metadata as unknown as Record<string, unknown>)[k] = v;
  return metadata;
}

/** RFC 7592 §2.2: members a client must not send in an update (the server manages them). */
export const SERVER_MANAGED_FIELDS = ["registration_access_token", "registration_client_uri", "client_id_issued_at", "client_secret_expires_at"] as const;
