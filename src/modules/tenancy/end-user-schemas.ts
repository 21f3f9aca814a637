// Input validation for end-user state (spec "Tenant end-user state", "End users").
import { z } from "zod";
import type { Prisma } from "../../generated/sqlite/client";
import { Keyset, pageQuery } from "../../shared/pagination";

export const END_USER_STATUSES = ["active", "suspended"] as const;
export type EndUserStatus = (typeof END_USER_STATUSES)[number];

function isJsonText(s: string): boolean {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

/** A JSON document held as a string (spec); its meaning is not defined yet, so any JSON text is kept as sent. */
const rateLimitOverride = z.string().max(10_000).refine(isJsonText, "must be a string holding a JSON document");
const planTier = z.string().trim().min(1, "must not be empty").max(64);
const reason = z.string().trim().max(1000);

/** PATCH: any subset; null clears plan_tier, rate_limit_override or suspended_reason. */
export const patchEndUserSchema = z
  .object({
    status: z.enum(END_USER_STATUSES).optional(),
    plan_tier: planTier.nullable().optional(),
    rate_limit_override: rateLimitOverride.nullable().optional(),
    suspended_reason: reason.nullable().optional(),
  })
  .strict()
  .refine((v) => Object.keys(v).length > 0, "nothing to update: send status, plan_tier, rate_limit_override or suspended_reason");
export type PatchEndUserInput = z.infer<typeof patchEndUserSchema>;

export const suspendEndUserSchema = z.object({ reason: reason.optional() }).strict();

/**
 * The end-users list (membership rows of the workspace): by email, the user id breaking ties (an
 * email is unique per installation, so it never has to).
 */
export const END_USER_LIST = new Keyset<{ userId: string; user: { email: string } }, Prisma.MembershipWhereInput, Prisma.MembershipOrderByWithRelationInput[]>(
  "end-users",
  [
    { field: "user.email", dir: "asc", kind: "string" },
    { field: "userId", dir: "asc", kind: "string" },
  ],
  (m) => [m.user.email, m.userId],
);

/** List filters and the page (`limit`, `cursor`); other query parameters are ignored. */
export const listEndUsersQuery = z.object({
  status: z.enum(END_USER_STATUSES).optional(),
  plan_tier: planTier.optional(),
  q: z.string().trim().min(1, "must not be empty").max(254).optional(),
  ...pageQuery(END_USER_LIST),
});
export type ListEndUsersFilter = z.infer<typeof listEndUsersQuery>;
