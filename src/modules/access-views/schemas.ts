// Inputs of the access views (zod at the boundary; REST and GraphQL parse with these).
import { z } from "zod";

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
