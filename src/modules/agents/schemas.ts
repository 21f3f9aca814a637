// Input of /svc/sdkmgr/agents (zod, strict): an AI agent of the workspace, what it may reach, and
// its list order.
import { z } from "zod";
import type { Prisma } from "../../generated/sqlite/client";
import { Keyset, pageQuery } from "../../shared/pagination";
import { nameSchema } from "../resource-servers";

export const AGENT_KINDS = ["autonomous", "assistant"] as const;
export type AgentKind = (typeof AGENT_KINDS)[number];

const uuid = z.string().uuid("must be a UUID");

/** One role the agent holds on one resource server. */
const accessItemSchema = z.object({ resource_server_id: uuid, role_id: uuid }).strict();
const accessSchema = z
  .array(accessItemSchema)
  .max(200)
  .refine((items) => new Set(items.map((i) => `${i.resource_server_id} ${i.role_id}`)).size === items.length, "must not repeat a (resource_server_id, role_id) pair");

export const createAgentSchema = z
  .object({
    name: nameSchema,
    kind: z.enum(AGENT_KINDS),
    description: z.string().trim().max(2000).optional(),
    /** The member answerable for it. */
    owner_user_id: uuid.optional(),
    access: accessSchema.default([]),
  })
  .strict();
export type CreateAgentInput = z.infer<typeof createAgentSchema>;

export const updateAgentSchema = z
  .object({
    name: nameSchema.optional(),
    kind: z.enum(AGENT_KINDS).optional(),
    description: z.string().trim().max(2000).nullable().optional(),
    owner_user_id: uuid.nullable().optional(),
  })
  .strict()
  .refine((v) => Object.keys(v).length > 0, "nothing to update");
export type UpdateAgentInput = z.infer<typeof updateAgentSchema>;

export const setAgentAccessSchema = z.object({ access: accessSchema }).strict();
export type SetAgentAccessInput = z.infer<typeof setAgentAccessSchema>;

/** A workspace's agents, oldest first. */
export const AGENT_LIST = new Keyset<{ createdAt: Date; id: string }, Prisma.AgentWhereInput, Prisma.AgentOrderByWithRelationInput[]>(
  "agents",
  [
    { field: "createdAt", dir: "asc", kind: "date" },
    { field: "id", dir: "asc", kind: "string" },
  ],
  (a) => [a.createdAt, a.id],
);

export const listAgentsQuerySchema = z.object({ status: z.enum(["active", "disabled"]).optional(), ...pageQuery(AGENT_LIST) }).strict();
export type ListAgentsQuery = z.infer<typeof listAgentsQuerySchema>;
