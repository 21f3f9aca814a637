// Rows the admin API cannot make (yet) or that a test needs in a shape the API refuses on purpose:
// a client of no server, a CIMD client with a staged redirect change, another workspace's client
// pointing at this workspace's server. One helper for every test that needs such a row, so the
// column defaults live in one place. Everything else is created through the HTTP API.
import type { Harness } from "./harness";

let seq = 0;

export interface ClientRow {
  tenantId: string;
  clientId?: string;
  resourceServerId?: string | null;
  clientName?: string;
  kind?: "m2m" | "agent" | "human_app" | "cli";
  registrationMode?: "prereg" | "dcr" | "cimd";
  redirectUris?: string[];
  stagedRedirectUris?: string[];
  grantTypes?: string[];
  allowedScopes?: string[];
}

/** Inserts a client row (through the tracked client, so caches see it like any write). */
export function insertClient(h: Harness, row: ClientRow) {
  seq++;
  return h.db.client.create({
    data: {
      clientId: row.clientId ?? `fixture-client-${seq}-${Date.now()}`,
      tenantId: row.tenantId,
      resourceServerId: row.resourceServerId ?? null,
      clientName: row.clientName ?? `svc ${seq}`,
      kind: row.kind ?? "m2m",
      registrationMode: row.registrationMode ?? "prereg",
      redirectUris: row.redirectUris ?? [],
      stagedRedirectUris: row.stagedRedirectUris,
      grantTypes: row.grantTypes ?? ["client_credentials"],
      allowedScopes: row.allowedScopes ?? [],
    },
  });
}
