// Input validation for resource-server registration and update (zod, strict: unknown fields are 400).
import { z } from "zod";
import type { Prisma } from "../../generated/sqlite/client";
import { Keyset, pageQuerySchema } from "../../shared/pagination";
import { uniqueList } from "../../shared/zod";
import { hasDotSegment, strictUrl } from "../../shared/urls";

export const REGISTRATION_MODES = ["dcr", "cimd", "prereg"] as const;
export type RegistrationMode = (typeof REGISTRATION_MODES)[number];

/**
 * An absolute http(s) URL with no query, fragment or credentials: the public address of the server.
 * Checked and normalised once (shared/urls.ts); stored normalised, without the trailing slash
 * WHATWG adds to an empty path (resource_url joins it with the path by exactly one slash).
 */
export const publicBaseUrlSchema = z
  .string()
  .trim()
  .max(2048)
  .transform((v, ctx) => {
    const r = strictUrl(v, { schemes: ["https:", "http:"], allowQuery: false });
    if (!r.ok) {
      ctx.addIssue({ code: "custom", message: `must be an absolute http(s) URL without query, fragment or credentials: it ${r.reason}` });
      return z.NEVER;
    }
    return r.url.pathname === "/" ? r.href.slice(0, -1) : r.href;
  });

/** A path prefix: starts with "/", URL path characters only, no "." or ".." segments (also percent-encoded). */
export const protectedBasePathSchema = z
  .string()
  .trim()
  .max(512)
  .regex(/^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/, "must be a path starting with / (no query, fragment or spaces)")
  .refine((p) => !hasDotSegment(p), "must not contain . or .. segments (also percent-encoded)")
  .refine((p) => !/%(?![0-9A-Fa-f]{2})/.test(p), "has an invalid percent-encoding");

/**
 * A rescan's mcp_token is forwarded as `Authorization: Bearer <token>`, an HTTP header value: visible
 * ASCII only (%x21-7E, a superset of RFC 6750 §2.1's b64token), so a token that could not be sent
 * (or that a server would split or misread) is bad input before the scan claims the server.
 */
export const MCP_TOKEN_RULE = "must be visible ASCII characters only (no spaces, control or non-ASCII characters): it is sent as an HTTP Bearer token";
export const mcpTokenSchema = z.string().min(1, "must not be empty").max(8192).regex(/^[\x21-\x7e]*$/, MCP_TOKEN_RULE);

/** A scope string (RFC 6749 §3.3 scope-token: printable ASCII except space, " and \). */
export const scopeTokenSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, "must be an RFC 6749 scope token (no spaces, quotes or backslashes)");

export const nameSchema = z.string().trim().min(1, "must not be empty").max(200);

export const createResourceServerSchema = z
  .object({
    name: nameSchema,
    public_base_url: publicBaseUrlSchema,
    protected_base_path: protectedBasePathSchema,
    scopes_supported: uniqueList(scopeTokenSchema, 200).default([]),
    registration_modes: uniqueList(z.enum(REGISTRATION_MODES), 3).min(1, "must name at least one mode").default([...REGISTRATION_MODES]),
  })
  .strict();
export type CreateResourceServerInput = z.infer<typeof createResourceServerSchema>;

export const updateResourceServerSchema = z
  .object({
    name: nameSchema.optional(),
    public_base_url: publicBaseUrlSchema.optional(),
    protected_base_path: protectedBasePathSchema.optional(),
    registration_modes: uniqueList(z.enum(REGISTRATION_MODES), 3).min(1, "must name at least one mode").optional(),
  })
  .strict()
  .refine((v) => Object.keys(v).length > 0, "nothing to update");
export type UpdateResourceServerInput = z.infer<typeof updateResourceServerSchema>;

/** The workspace's resource servers: oldest first, the row id breaking ties. */
export const RESOURCE_SERVER_LIST = new Keyset<{ createdAt: Date; id: string }, Prisma.ResourceServerWhereInput, Prisma.ResourceServerOrderByWithRelationInput[]>(
  "resource-servers",
  [
    { field: "createdAt", dir: "asc", kind: "date" },
    { field: "id", dir: "asc", kind: "string" },
  ],
  (rs) => [rs.createdAt, rs.id],
);
export const listResourceServersQuery = pageQuerySchema(RESOURCE_SERVER_LIST);
