// The authorization request (RFC 6749 §4.1.1 + OAuth 2.1 + RFC 7636 + RFC 8707), validated in the
// order RFC 6749 §4.1.2.1 requires: while the client or the redirect URI is in doubt, nothing may
// be sent to the redirect URI (an error page instead); after that, errors go back to the client
// as a redirect carrying `error`, `state` and `iss` (RFC 9207).
import { z } from "zod";
import { CODE_CHALLENGE_RE } from "./pkce";
import { redirectUriMatches } from "./redirect-uri";

export const authorizeQuerySchema = z.object({
  response_type: z.string().optional(),
  client_id: z.string().max(2048).optional(),
  redirect_uri: z.string().max(2048).optional(),
  scope: z.string().max(4096).optional(),
  state: z.string().max(2048).optional(),
  code_challenge: z.string().max(256).optional(),
  code_challenge_method: z.string().max(16).optional(),
  resource: z.string().max(2048).optional(),
  // OpenID Connect Core §3.1.2.1
  nonce: z.string().max(512).optional(),
  prompt: z.string().max(64).optional(),
  max_age: z.string().max(12).optional(),
  login_hint: z.string().max(254).optional(),
  id_token_hint: z.string().max(8192).optional(),
  response_mode: z.string().max(32).optional(),
  request: z.string().max(16384).optional(),
  request_uri: z.string().max(2048).optional(),
});
export type AuthorizeQuery = z.infer<typeof authorizeQuerySchema>;

/** What the sign-in needs to know about the client (read from the clients module). */
export interface SignInClient {
  clientId: string;
  clientName: string;
  /** null for a dcr/cimd client: the `resource` of the request picks the server and so the workspace. */
  tenantId: string | null;
  resourceServerId: string | null;
  /** prereg | dcr | cimd */
  registrationMode: string;
  status: string;
  redirectUris: string[];
  grantTypes: string[];
  allowedScopes: string[];
}

/** What the sign-in needs to know about a resource server (from the in-memory registry). */
export interface SignInServer {
  id: string;
  tenantId: string;
  resourceUrl: string;
  registrationModes: string[];
}

/** A validated request: everything the code will be bound to. */
export interface ValidatedAuthorization {
  clientId: string;
  tenantId: string;
  resourceServerId: string;
  resource: string;
  redirectUri: string;
  /** Whether the request carried redirect_uri (else the one registered URI is used, and the token request may omit it). */
  redirectUriSent: boolean;
  scopes: string[];
  /** No scope requested by a dcr/cimd client: every scope of the server the user holds (decided at consent). */
  allHeld?: boolean;
  /** The client reaches the server through a connection (dcr/cimd): consent records it. */
  viaConnection?: boolean;
  state?: string;
  codeChallenge: string;
  /** OpenID Connect: present when `openid` was requested (its identity scopes and nonce). */
  oidc?: { scopes: string[]; nonce?: string };
  /** prompt values (none | login | consent), max_age (seconds), login_hint and id_token_hint as sent. */
  prompt: string[];
  maxAge?: number;
  loginHint?: string;
  idTokenHint?: string;
}

/** Scopes of OpenID Connect itself (OIDC Core §5.4), never a resource server's: `profile` and `email` count only beside `openid`. */
export const OIDC_SCOPES: ReadonlySet<string> = new Set(["openid", "profile", "email"]);
const PROMPT_VALUES = new Set(["none", "login", "consent"]);

/** The OpenID Connect scopes among granted ones (none without `openid`): never narrowed by a resource server's roles. */
export function oidcScopesOf(scopes: readonly string[]): ReadonlySet<string> {
  return scopes.includes("openid") ? new Set(scopes.filter((s) => OIDC_SCOPES.has(s))) : new Set();
}

/** The request's scopes split into OpenID Connect's and the resource server's. */
function splitScopes(requested: string[]): { resource: string[]; oidc: string[] | undefined } {
  if (!requested.includes("openid")) return { resource: requested, oidc: undefined };
  return { resource: requested.filter((s) => !OIDC_SCOPES.has(s)), oidc: requested.filter((s) => OIDC_SCOPES.has(s)) };
}

/** The OIDC parameters' problem (an invalid_request or request*_not_supported error), or their values. */
function readOidcParameters(q: AuthorizeQuery): { error: string; description: string } | Pick<ValidatedAuthorization, "prompt" | "maxAge" | "loginHint" | "idTokenHint"> {
  if (q.request !== undefined) return { error: "request_not_supported", description: "request objects are not supported" };
  if (q.request_uri !== undefined) return { error: "request_uri_not_supported", description: "request_uri is not supported" };
  if (q.response_mode !== undefined && q.response_mode !== "query") return { error: "invalid_request", description: "only response_mode=query is supported" };
  const prompt = [...new Set((q.prompt ?? "").split(" ").filter(Boolean))];
  if (prompt.some((p) => !PROMPT_VALUES.has(p))) return { error: "invalid_request", description: "prompt values supported: none, login, consent" };
  if (prompt.includes("none") && prompt.length > 1) return { error: "invalid_request", description: "prompt=none cannot be combined with another value" };
  let maxAge: number | undefined;
  if (q.max_age !== undefined) {
    if (!/^\d{1,9}$/.test(q.max_age)) return { error: "invalid_request", description: "max_age must be a non-negative whole number of seconds" };
    maxAge = Number(q.max_age);
  }
  return { prompt, maxAge, loginHint: q.login_hint?.trim() || undefined, idTokenHint: q.id_token_hint };
}

export type AuthorizeOutcome =
  | { kind: "ok"; request: ValidatedAuthorization; client: SignInClient }
  /** Must not redirect: show an error page (RFC 6749 §4.1.2.1); `retryAfter` makes it a 429. */
  | { kind: "page_error"; message: string; retryAfter?: number }
  /** Redirect back to the client with an OAuth error. */
  | { kind: "redirect_error"; redirectUri: string; error: string; description: string; state?: string };

export interface AuthorizePorts {
  /** The client; `refused` when its registration cannot be used now (a CIMD document that failed), with the reason to show. */
  findClient(clientId: string, address?: string): Promise<SignInClient | { refused: string; retryAfter?: number } | null>;
  /** The client's workspace's live server for `resource` (X and X/ alike), or by id. */
  serverByResource(tenantId: string, resource: string): Promise<SignInServer | null>;
  serverById(id: string): SignInServer | null | Promise<SignInServer | null>;
  /** Every live server, in any workspace, with that resource URL (for dcr/cimd clients). */
  serversByResource(resource: string): Promise<SignInServer[]>;
  /** The status of a dcr/cimd client's connection to a server, null when it has none yet. */
  connectionStatus(clientId: string, resourceServerId: string): Promise<string | null>;
}

const SCOPE_TOKEN_RE = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

export async function validateAuthorizationRequest(q: AuthorizeQuery, ports: AuthorizePorts, address?: string): Promise<AuthorizeOutcome> {
  if (!q.client_id) return { kind: "page_error", message: "The request has no client_id." };
  const found = await ports.findClient(q.client_id, address);
  if (found && "refused" in found) return { kind: "page_error", message: `The client's metadata document cannot be used: ${found.refused}.`, retryAfter: found.retryAfter };
  const client = found;
  if (!client || client.status !== "approved") return { kind: "page_error", message: "Unknown or inactive client." };
  // OAuth 2.1 §4.1.1: redirect_uri may only be omitted when exactly one is registered.
  const redirectUri = q.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!redirectUri || !redirectUriMatches(redirectUri, client.redirectUris)) {
    return { kind: "page_error", message: "The redirect_uri is missing or is not registered for this client." };
  }

  const fail = (error: string, description: string): AuthorizeOutcome => ({ kind: "redirect_error", redirectUri, error, description, state: q.state });
  if (q.response_type !== "code") return fail("unsupported_response_type", "only response_type=code is supported");
  if (!client.grantTypes.includes("authorization_code")) return fail("unauthorized_client", "the client may not use the authorization code grant");
  // PKCE is mandatory and S256 only (OAuth 2.1 §4.1.1; MCP clients always use S256).
  if (!q.code_challenge || !CODE_CHALLENGE_RE.test(q.code_challenge)) return fail("invalid_request", "code_challenge (S256) is required");
  if (q.code_challenge_method !== "S256") return fail("invalid_request", "code_challenge_method must be S256");
  const withPkce = { ...q, code_challenge: q.code_challenge };
  const oidcParams = readOidcParameters(q);
  if ("error" in oidcParams) return fail(oidcParams.error, oidcParams.description);

  if (client.tenantId === null) return connectionRequest(withPkce, client, redirectUri, ports, fail, oidcParams);

  // RFC 8707: the resource names the server the token is for; default the client's own server.
  let server: SignInServer | null;
  if (q.resource !== undefined) {
    server = await ports.serverByResource(client.tenantId!, q.resource);
    if (!server || (client.resourceServerId !== null && server.id !== client.resourceServerId)) {
      return fail("invalid_target", "the requested resource is not available to this client");
    }
  } else {
    server = client.resourceServerId ? await ports.serverById(client.resourceServerId) : null;
    if (!server) return fail("invalid_target", "the requested resource is not available to this client");
  }

  const requested = q.scope?.split(" ").filter(Boolean) ?? [];
  if (requested.some((s) => !SCOPE_TOKEN_RE.test(s))) return fail("invalid_scope", "the requested scope is invalid");
  const { resource, oidc } = splitScopes([...new Set(requested)]);
  const allowed = new Set(client.allowedScopes);
  if (resource.some((s) => !allowed.has(s))) return fail("invalid_scope", "the requested scope is not allowed for this client");
  // No scope at all: every allowed one. Only OpenID scopes: identity, no resource scope.
  const scopes = requested.length === 0 ? [...client.allowedScopes] : resource;

  return accepted(withPkce, client, server, redirectUri, { scopes, ...oidcOf(oidc, q) }, oidcParams);
}

/** The validated request, bound to `server`, with the scope decision of the caller. */
function oidcOf(oidc: string[] | undefined, q: AuthorizeQuery): Pick<ValidatedAuthorization, "oidc"> {
  return oidc ? { oidc: { scopes: oidc, ...(q.nonce !== undefined ? { nonce: q.nonce } : {}) } } : {};
}

function accepted(
  q: AuthorizeQuery & { code_challenge: string },
  client: SignInClient,
  server: SignInServer,
  redirectUri: string,
  scopes: Pick<ValidatedAuthorization, "scopes" | "allHeld" | "viaConnection" | "oidc">,
  oidcParams: Pick<ValidatedAuthorization, "prompt" | "maxAge" | "loginHint" | "idTokenHint">,
): AuthorizeOutcome {
  return {
    kind: "ok",
    client,
    request: {
      clientId: client.clientId,
      tenantId: server.tenantId,
      resourceServerId: server.id,
      resource: server.resourceUrl,
      redirectUri,
      redirectUriSent: q.redirect_uri !== undefined,
      ...scopes,
      state: q.state,
      codeChallenge: q.code_challenge,
      ...oidcParams,
    },
  };
}

/**
 * A dcr/cimd client (no workspace): the `resource` is required and names exactly one live server
 * (DESIGN "Clients and connections"), which must accept the client's registration mode (the
 * server's registration_modes); a revoked connection stays revoked. Scopes: whatever the client
 * asks of that server, narrowed at consent to what the user holds there (no scope asked: all of it).
 */
async function connectionRequest(
  q: AuthorizeQuery & { code_challenge: string },
  client: SignInClient,
  redirectUri: string,
  ports: AuthorizePorts,
  fail: (error: string, description: string) => AuthorizeOutcome,
  oidcParams: Pick<ValidatedAuthorization, "prompt" | "maxAge" | "loginHint" | "idTokenHint">,
): Promise<AuthorizeOutcome> {
  if (q.resource === undefined) return fail("invalid_target", "resource is required: it names the MCP server this client connects to");
  const servers = await ports.serversByResource(q.resource);
  // Two workspaces protecting the same URL cannot be told apart by a client of no workspace.
  if (servers.length !== 1) return fail("invalid_target", "the requested resource is not available to this client");
  const server = servers[0]!;
  if (!server.registrationModes.includes(client.registrationMode)) {
    return fail("unauthorized_client", `this resource server does not accept ${client.registrationMode} clients (registration_modes)`);
  }
  if ((await ports.connectionStatus(client.clientId, server.id)) === "revoked") return fail("access_denied", "this client's access to the resource server was revoked");
  const requested = q.scope?.split(" ").filter(Boolean) ?? [];
  if (requested.some((s) => !SCOPE_TOKEN_RE.test(s))) return fail("invalid_scope", "the requested scope is invalid");
  const { resource, oidc } = splitScopes([...new Set(requested)]);
  return accepted(q, client, server, redirectUri, { scopes: resource, allHeld: requested.length === 0, viaConnection: true, ...oidcOf(oidc, q) }, oidcParams);
}
