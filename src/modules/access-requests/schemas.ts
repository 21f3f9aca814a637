// Input of the access-request endpoints (zod, strict): list filters, approval (optionally narrowing
// the scopes or binding a role), denial with a reason (docs/enterprise-agents.md).
import { z } from "zod";
import type { Prisma } from "../../generated/sqlite/client";
import { Keyset, pageQuery } from "../../shared/pagination";

export const ACCESS_REQUEST_STATUSES = ["pending", "approved", "denied", "revoked"] as const;
export type AccessRequestStatus = (typeof ACCESS_REQUEST_STATUSES)[number];

const SCOPE_TOKEN_RE = /^[\x21\x23-\x5B\x5D-\x7E]+$/;

/** A workspace's (or a server's) access requests, newest first. */
export const ACCESS_REQUEST_LIST = new Keyset<{ createdAt: Date; id: string }, Prisma.AccessRequestWhereInput, Prisma.AccessRequestOrderByWithRelationInput[]>(
  "access_requests",
  [
    { field: "createdAt", dir: "desc", kind: "date" },
    { field: "id", dir: "desc", kind: "string" },
  ],
  (a) => [a.createdAt, a.id],
);

export const listAccessRequestsQuery = z.object({ status: z.enum(ACCESS_REQUEST_STATUSES).optional(), ...pageQuery(ACCESS_REQUEST_LIST) }).strict();
export type ListAccessRequestsQuery = z.infer<typeof listAccessRequestsQuery>;

export const approveAccessRequestSchema = z
  .object({
    /** Never more than these (the token is always also bounded by the ID-JAG and what the user holds). */
    scopes: z.array(z.string().regex(SCOPE_TOKEN_RE, "must be a scope token")).max(200).optional(),
    /** A role of the workspace to bind to the user on the request's server. */
    role_id: z.string().uuid("must be a UUID").optional(),
  })
  .strict();
export type ApproveAccessRequestInput = z.infer<typeof approveAccessRequestSchema>;

export const denyAccessRequestSchema = z.object({ reason: z.string().trim().min(1).max(1000) }).strict();
export type DenyAccessRequestInput = z.infer<typeof denyAccessRequestSchema>;
