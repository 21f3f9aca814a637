// Input validation of upstream identity providers (zod, strict: unknown fields are 400). REST and
// GraphQL parse with these same schemas, so both refuse the same input the same way.
import { z } from "zod";
import type { Prisma } from "../../generated/sqlite/client";
import { Keyset, pageQuerySchema } from "../../shared/pagination";

export const ALLOWED_FOR = ["end_users", "admins"] as const;
export type AllowedFor = (typeof ALLOWED_FOR)[number];
/** How Toolgate authenticates at the provider's token endpoint (private_key_jwt: RFC 7523 §2.2 with Toolgate's own key). */
export const TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "private_key_jwt"] as const;
export type TokenEndpointAuthMethod = (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];

const claimName = z.string().trim().min(1).max(100);
const domain = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, "must be a domain name such as acme.com");

export const claimMappingSchema = z
  .object({ email: claimName.default("email"), name: claimName.default("name"), groups: claimName.default("groups") })
  .strict();

const groupSyncEntry = z.object({ upstream: z.string().trim().min(1).max(200), group_id: z.string().uuid("must be a UUID") }).strict();

/** The issuer identifier (OIDC Discovery §4.3: https, or http on loopback when the SSRF guard allows it); kept exactly as given. */
const issuer = z
  .string()
  .max(2000)
  .refine((s) => {
    try {
      const u = new URL(s);
      return (u.protocol === "https:" || u.protocol === "http:") && !u.search && !u.hash && !u.username && !u.password;
    } catch {
      return false;
    }
  }, "must be an http(s) URL without query, fragment or credentials");

const fields = {
  name: z.string().trim().min(1, "must not be empty").max(200),
  issuer,
  client_id: z.string().min(1).max(500),
  client_secret: z.string().min(1).max(2000),
  token_endpoint_auth_method: z.enum(TOKEN_ENDPOINT_AUTH_METHODS),
  scopes: z
    .string()
    .trim()
    .max(1000)
    .refine((s) => s.split(/\s+/).includes("openid"), "must include openid"),
  enabled: z.boolean(),
  email_domains: z.array(domain).max(100),
  claim_mapping: claimMappingSchema,
  jit_provisioning: z.boolean(),
  default_role_id: z.string().uuid("must be a UUID").nullable(),
  trust_email: z.boolean(),
  group_sync: z.array(groupSyncEntry).max(200),
  allowed_for: z.array(z.enum(ALLOWED_FOR)).min(1, "must name end_users, admins or both").max(2),
};

export const createProviderSchema = z
  .object({
    ...fields,
    client_secret: fields.client_secret.optional(),
    token_endpoint_auth_method: fields.token_endpoint_auth_method.default("client_secret_basic"),
    scopes: fields.scopes.default("openid email profile"),
    enabled: fields.enabled.default(true),
    email_domains: fields.email_domains.default([]),
    claim_mapping: claimMappingSchema.default({ email: "email", name: "name", groups: "groups" }),
    jit_provisioning: fields.jit_provisioning.default(true),
    default_role_id: fields.default_role_id.optional(),
    trust_email: fields.trust_email.default(false),
    group_sync: fields.group_sync.default([]),
    allowed_for: fields.allowed_for.default(["end_users"]),
  })
  .strict();
export type CreateProviderInput = z.infer<typeof createProviderSchema>;

/** PATCH: every field optional; `client_secret` rotates the secret (null removes it). */
export const updateProviderSchema = z
  .object({
    name: fields.name,
    issuer: fields.issuer,
    client_id: fields.client_id,
    client_secret: fields.client_secret.nullable(),
    token_endpoint_auth_method: fields.token_endpoint_auth_method,
    scopes: fields.scopes,
    enabled: fields.enabled,
    email_domains: fields.email_domains,
    claim_mapping: claimMappingSchema,
    jit_provisioning: fields.jit_provisioning,
    default_role_id: fields.default_role_id,
    trust_email: fields.trust_email,
    group_sync: fields.group_sync,
    allowed_for: fields.allowed_for,
  })
  .partial()
  .strict();
export type UpdateProviderInput = z.infer<typeof updateProviderSchema>;

export type ClaimMapping = z.infer<typeof claimMappingSchema>;
export type GroupSyncEntry = z.infer<typeof groupSyncEntry>;

/** The providers list: by name, the row id breaking ties (docs/architecture.md "Pagination"). */
export const PROVIDER_LIST = new Keyset<{ name: string; id: string }, Prisma.IdentityProviderWhereInput, Prisma.IdentityProviderOrderByWithRelationInput[]>(
  "identity-providers",
  [
    { field: "name", dir: "asc", kind: "string" },
    { field: "id", dir: "asc", kind: "string" },
  ],
  (p) => [p.name, p.id],
);
export const listProvidersQuery = pageQuerySchema(PROVIDER_LIST);
