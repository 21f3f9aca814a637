// The access simulation (POST /svc/v1/applications/:id/access-simulations) as a read keyed by its
// inputs under the workspace: it runs when every input is chosen and again whenever a change
// invalidates the workspace's data (applying a fix).
import { useQuery } from "@tanstack/react-query";
import { ApiError } from "../../api/errors";
import { rest } from "../../api/rest";
import { useSession, useSignedIn } from "../../app/session";
import type { Simulation } from "./types";

export const SIMULATION_KEY = "simulation";

export interface SimulationInputs {
  app: string;
  user: string;
  tool: string;
  client: string;
}

export function useSimulation(i: SimulationInputs) {
  const s = useSignedIn();
  const { signOut } = useSession();
  return useQuery({
    queryKey: [s.workspaceId, SIMULATION_KEY, i],
    enabled: Boolean(i.app && i.user && i.tool),
    queryFn: ({ signal }) =>
      rest<Simulation>("POST", `/svc/v1/applications/${i.app}/access-simulations`, {
        token: s.token,
        signal,
        body: { user_id: i.user, tool_id: i.tool, ...(i.client ? { client_id: i.client } : {}) },
      }).catch((e) => {
        if (e instanceof ApiError && e.signedOut) signOut(`${e.message}. Sign in again.`);
        throw e;
      }),
  });
}
