import { z } from "zod";

/** What a user's first sign-in to the server gets (read by the sign-in flow's first-time grant). */
export const FIRST_TIME_GRANTS = ["default_role", "none"] as const;

/**
 * PUT body. `enabled` is required; an omitted `default_role_id` or `first_time_grant` keeps the
 * current value (so disabling does not forget the role), an explicit null clears the role.
 */
export const accessPolicySchema = z
  .object({
    enabled: z.boolean(),
    default_role_id: z.string().uuid("must be a UUID").nullable().optional(),
    first_time_grant: z.enum(FIRST_TIME_GRANTS).optional(),
  })
  .strict();
export type AccessPolicyInput = z.infer<typeof accessPolicySchema>;
