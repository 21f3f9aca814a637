// Input validation for OAuth clients (zod, strict: unknown fields are 400). Wire names follow the
// spec ("Client") and docs/decisions/0012-admin-interfaces.md; rows are camelCase (views.ts maps:
// docs/decisions/0011-wire-json-snake-case.md).
import { z } from "zod";
import type { Prisma } from "../../generated/sqlite/client";
import { Keyset, pageQuery } from "../../shared/pagination";
import { isLoopbackHttp } from "../../shared/loopback";
import { strictUrl } from "../../shared/urls";
import { uniqueList } from "../../shared/zod";
import { nameSchema, scopeTokenSchema } from "../resource-servers";
import { ID_TOKEN_ALGS } from "./registration-metadata";

export const CLIENT_KINDS = ["agent", "human_app", "m2m", "cli"] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

/** `disabled`: an agent's client switched off by an administrator (reversible, unlike `revoked`). */
export const CLIENT_STATUSES = ["pending", "approved", "revoked", "disabled"] as const;
export type ClientStatus = (typeof CLIENT_STATUSES)[number];

/**
 * Grant types a client may be configured for. A client may hold a grant the token endpoint does
 * not serve yet (configuration ahead of the feature); the endpoint only issues what it implements.
 */
export const CLIENT_GRANT_TYPES = ["client_credentials", "authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:jwt-bearer"] as const;
export type ClientGrantType = (typeof CLIENT_GRANT_TYPES)[number];

/** Machine-to-machine clients get tokens for themselves; the others act for a signed-in user. */
export function defaultGrantTypes(kind: ClientKind): ClientGrantType[] {
  return kind === "m2m" ? ["client_credentials"] : ["authorization_code", "refresh_token"];
}

/**
 * Recommended 1 to 24 hours (spec "Limits"); enforced 5 minutes to 24 hours
 * (docs/decisions/0010-client-token-lifetime.md).
 */
export const TOKEN_LIFETIME = { min: 300, max: 86_400, default: 3600 } as const;

/**
 * A redirect URI: absolute, no fragment (RFC 6749 §3.1.2), https or loopback http (OAuth 2.1
 * §1.5 / RFC 8252 §7.3 — native MCP clients such as Claude Code and VS Code use
 * http://127.0.0.1:<port>/ or http://localhost:<port>/,
 * docs/decisions/0008-loopback-redirect-uris.md), no credentials.
 */
export const redirectUriSchema = z
  .string()
  .trim()
  .max(2048)
  .transform((v, ctx) => {
    const r = strictUrl(v, { schemes: ["https:", "http:"], allowQuery: true });
    if (!r.ok || (r.url.protocol === "http:" && !isLoopbackHttp(r.url))) {
      const why = r.ok ? "" : `: it ${r.reason}`;
      ctx.addIssue({ code: "custom", message: `must be an absolute https URL (or http on 127.0.0.1, [::1] or localhost) without fragment or credentials${why}` });
      return z.NEVER;
    }
    return r.href; // stored normalised (shared/urls.ts); presented ones are normalised the same way
  });

const descriptionSchema = z.string().trim().max(2000);
const grantTypesSchema = uniqueList(z.enum(CLIENT_GRANT_TYPES), 10).min(1, "must name at least one grant type");
const tokenLifetimeSchema = z.number().int("must be a whole number of seconds").min(TOKEN_LIFETIME.min).max(TOKEN_LIFETIME.max);

/**
 * How a pre-registered client authenticates at the token endpoint: with its secret (Basic or in
 * the body, both accepted), or not at all (`none`: a public client, RFC 7591 §2 / OAuth 2.1 §2.1,
 * always with PKCE).
 */
export const PREREG_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"] as const;

/** POST /svc/resource-servers/:id/clients (pre-registration). */
export const createClientSchema = z
  .object({
    client_name: nameSchema,
    redirect_uris: uniqueList(redirectUriSchema, 50),
    kind: z.enum(CLIENT_KINDS).default("m2m"),
    description: descriptionSchema.optional(),
    grant_types: grantTypesSchema.optional(),
    allowed_scopes: uniqueList(scopeTokenSchema, 200).default([]),
    token_lifetime: tokenLifetimeSchema.default(TOKEN_LIFETIME.default),
    token_endpoint_auth_method: z.enum(PREREG_AUTH_METHODS).default("client_secret_basic"),
    post_logout_redirect_uris: uniqueList(redirectUriSchema, 20).optional(),
    id_token_signed_response_alg: z.enum(ID_TOKEN_ALGS).optional(),
  })
  .strict()
  // A public client acts for a signed-in user: never a machine (no secret, no user = anyone).
  .refine((v) => v.token_endpoint_auth_method !== "none" || v.kind !== "m2m", {
    path: ["token_endpoint_auth_method"],
    message: "none (a public client) is for agent, human_app and cli clients, not m2m",
  })
  .refine((v) => v.token_endpoint_auth_method !== "none" || !(v.grant_types ?? []).includes("client_credentials"), {
    path: ["grant_types"],
    message: "client_credentials needs a client secret; a public client (none) cannot use it",
  });
export type CreateClientInput = z.infer<typeof createClientSchema>;

/** POST /svc/clientms/clients: the dashboard's registration form (docs/decisions/0012-admin-interfaces.md). */
export const dashboardClientSchema = z
  .object({
    client_name: nameSchema,
    client_type: z.enum(CLIENT_KINDS),
    description: descriptionSchema.optional(),
    resource_server_id: z.string().uuid("must be a UUID"),
  })
  .strict();
export type DashboardClientInput = z.infer<typeof dashboardClientSchema>;

/** PATCH .../clients/:client_id: the configurable properties (spec "Client"). */
export const updateClientSchema = z
  .object({
    client_name: nameSchema.optional(),
    description: descriptionSchema.nullable().optional(),
    redirect_uris: uniqueList(redirectUriSchema, 50).optional(),
    grant_types: grantTypesSchema.optional(),
    allowed_scopes: uniqueList(scopeTokenSchema, 200).optional(),
    token_lifetime: tokenLifetimeSchema.optional(),
    post_logout_redirect_uris: uniqueList(redirectUriSchema, 20).optional(),
    id_token_signed_response_alg: z.enum(ID_TOKEN_ALGS).optional(),
  })
  .strict()
  .refine((v) => Object.keys(v).length > 0, "nothing to update");
export type UpdateClientInput = z.infer<typeof updateClientSchema>;

/**
 * How long a rotated-out client secret stays valid, so workloads can roll over without downtime:
 * at most one day (issue 10; the spec recommends rotating at least every 90 days).
 */
export const SECRET_GRACE = { min: 0, max: 86_400 } as const;
const graceMessage = `must be a whole number of seconds from ${SECRET_GRACE.min} to ${SECRET_GRACE.max}`;

/**
 * Seconds the old secret stays valid after a rotation; absent means 0 (refused at once). One check
 * and one message for every wrong value, wrong types included (a string, null, a fraction).
 */
export const secretGraceSchema = z
  .custom<number>((v) => Number.isInteger(v) && (v as number) >= SECRET_GRACE.min && (v as number) <= SECRET_GRACE.max, graceMessage)
  .optional();

/** POST .../clients/:client_id/rotate-secret (the body is optional: no grace). */
export const rotateSecretSchema = z.object({ grace_seconds: secretGraceSchema }).strict();
export type RotateSecretInput = z.infer<typeof rotateSecretSchema>;

/** The clients of a resource server: oldest first, the row id breaking ties. */
export const CLIENT_LIST = new Keyset<{ createdAt: Date; id: string }, Prisma.ClientWhereInput, Prisma.ClientOrderByWithRelationInput[]>(
  "clients",
  [
    { field: "createdAt", dir: "asc", kind: "date" },
    { field: "id", dir: "asc", kind: "string" },
  ],
  (c) => [c.createdAt, c.id],
);

/** GET .../clients?kind=&status=&limit=&cursor= */
export const listClientsQuerySchema = z
  .object({
    kind: z.enum(CLIENT_KINDS).optional(),
    status: z.enum(CLIENT_STATUSES).optional(),
    ...pageQuery(CLIENT_LIST),
  })
  .strict();
export type ListClientsQuery = z.infer<typeof listClientsQuerySchema>;

/** An OAuth client_id in a path: opaque, URL-safe for our own ids (CIMD ids are URLs, decoded by Express). */
export const clientIdParamSchema = z.string().min(1).max(2048);

/** The connections of a server or a client: oldest first, the row id breaking ties. */
export const CONNECTION_LIST = new Keyset<{ createdAt: Date; id: string }, Prisma.ConnectionWhereInput, Prisma.ConnectionOrderByWithRelationInput[]>(
  "connections",
  [
    { field: "createdAt", dir: "asc", kind: "date" },
    { field: "id", dir: "asc", kind: "string" },
  ],
  (c) => [c.createdAt, c.id],
);
