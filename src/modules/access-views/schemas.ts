// Inputs of the access views (zod at the boundary; REST and GraphQL parse with these).
import { z } from "zod";
import { cursorSchema, pageQuerySchema } from "../../shared/pagination";
import { AUDIT_EVENT_LIST } from "../audit";
import { APPLICATION_LIST, ASSIGNMENT_LIST, END_USER_LIST, HOLDER_LIST, SCOPE_LIST, TOOL_LIST } from "./read-models";

const uuid = z.string().uuid("must be a UUID");

/** Spec "Access simulation" request: user_id, tool_id, client_id (optional OAuth client id). */
export const simulationInputSchema = z
  .object({
    user_id: uuid,
    tool_id: uuid,
    client_id: z.string().min(1).max(2048).optional(),
  })
  .strict();

export const effectiveAccessQuery = z.object({ user_id: uuid });

export const postureQuery = pageQuerySchema(APPLICATION_LIST);
export const toolExposureQuery = pageQuerySchema(TOOL_LIST);
export const scopesQuery = pageQuerySchema(SCOPE_LIST);
export const scopeHoldersQuery = pageQuerySchema(HOLDER_LIST);
export const assignmentsQuery = pageQuerySchema(ASSIGNMENT_LIST);
export const endUserSummaryQuery = pageQuerySchema(END_USER_LIST);

/** "Why did this fail": exactly one of client_id (the OAuth client_id) and user_id; at most 50 per page. */
export const recentFailuresQuery = z
  .object({
    client_id: z.string().min(1).max(2048).optional(),
    user_id: uuid.optional(),
    limit: z.coerce.number().int().min(1).max(50).default(20),
    cursor: cursorSchema(AUDIT_EVENT_LIST),
  })
  .strict();
