// Input validation for resource-server registration and update (zod, strict: unknown fields are 400).
import { z } from "zod";
import type { Prisma } from "../../generated/sqlite/client";
import { Keyset, pageQuerySchema } from "../../shared/pagination";
import { uniqueList } from "../../shared/zod";

export const REGISTRATION_MODES = ["dcr", "cimd", "prereg"] as const;
export type RegistrationMode = (typeof REGISTRATION_MODES)[number];

/** An absolute http(s) URL with no query, fragment or credentials: the public address of the server. */
export const publicBaseUrlSchema = z
  .string()
  .trim()
  .max(2048)
  .refine((v) => !/[\s\u0000-\u001f\u007f]/.test(v), "must not contain spaces or control characters")
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === "https:" || u.protocol === "http:") && !u.search && !u.hash && !u.username && !u.password && !v.includes("#") && !v.includes("?");
    } catch {
      return false;
    }
  }, "must be an absolute http(s) URL without query, fragment or credentials");

/** A path prefix: starts with "/", URL path characters only, no "." or ".." segments. */
export const protectedBasePathSchema = z
  .string()
  .trim()
  .max(512)
  .regex(/^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/, "must be a path starting with / (no query, fragment or spaces)")
  .refine((p) => !p.split("/").some((seg) => seg === "." || seg === ".."), "must not contain . or .. segments")
  .refine((p) => !/%(?![0-9A-Fa-f]{2})/.test(p), "has an invalid percent-encoding");

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
