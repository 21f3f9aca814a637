// Inputs of the access views (zod at the boundary; REST and GraphQL parse with these).
import { z } from "zod";
import { pageQuerySchema } from "../../shared/pagination";
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
