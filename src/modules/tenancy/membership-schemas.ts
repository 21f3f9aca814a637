// Input validation for workspace memberships (spec "Tenant membership", "Memberships").
// Unknown enum values are 400 naming the field; unknown body fields are 400 too.
import { z } from "zod";
import type { Prisma } from "../../generated/sqlite/client";
import { MEMBERSHIP_TYPES } from "../../shared/actor";
import { Keyset, pageQuery } from "../../shared/pagination";

export const MEMBERSHIP_STATUSES = ["active", "invited", "suspended", "left"] as const;
export type MembershipStatus = (typeof MEMBERSHIP_STATUSES)[number];

const externalId = z.string().trim().min(1, "must not be empty").max(256);

export const createMembershipSchema = z
  .object({
    user_id: z.string().uuid("must be a UUID"),
    membership_type: z.enum(MEMBERSHIP_TYPES).default("member"),
    status: z.enum(MEMBERSHIP_STATUSES).default("active"),
    source: z.string().trim().min(1, "must not be empty").max(64).default("api"),
    external_id: externalId.nullish(),
  })
  .strict();
export type CreateMembershipInput = z.infer<typeof createMembershipSchema>;

/** Any subset of status, membership_type and external_id (null clears external_id). */
export const updateMembershipSchema = z
  .object({
    status: z.enum(MEMBERSHIP_STATUSES).optional(),
    membership_type: z.enum(MEMBERSHIP_TYPES).optional(),
    external_id: externalId.nullable().optional(),
  })
  .strict()
  .refine((v) => Object.keys(v).length > 0, "nothing to update: send status, membership_type or external_id");
export type UpdateMembershipInput = z.infer<typeof updateMembershipSchema>;

/** The memberships list: oldest first, the row id breaking ties. */
export const MEMBERSHIP_LIST = new Keyset<{ createdAt: Date; id: string }, Prisma.MembershipWhereInput, Prisma.MembershipOrderByWithRelationInput[]>(
  "memberships",
  [
    { field: "createdAt", dir: "asc", kind: "date" },
    { field: "id", dir: "asc", kind: "string" },
  ],
  (m) => [m.createdAt, m.id],
);

/** List filters `status` and `type` (the membership type) and the page (`limit`, `cursor`). Other query parameters are ignored. */
export const listMembershipsQuery = z.object({
  status: z.enum(MEMBERSHIP_STATUSES).optional(),
  type: z.enum(MEMBERSHIP_TYPES).optional(),
  ...pageQuery(MEMBERSHIP_LIST),
});
export type ListMembershipsFilter = z.infer<typeof listMembershipsQuery>;
