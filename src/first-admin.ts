// The first workspace on an empty database. With TOOLGATE_ADMIN_EMAIL/PASSWORD it is created from
// them. Without them, on the embedded database only (a fresh `npm start`), Toolgate creates an
// owner with a random password and writes the credentials to <data dir>/initial-admin.json with
// mode 0600, so a new user can log in without the password ever appearing in a log.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { Config } from "./config";
import type { TenancyService } from "./modules/tenancy";

export const GENERATED_ADMIN_EMAIL = "admin@toolgate.local";

export type FirstAdmin =
  | { kind: "from_env"; email: string; workspace_id: string }
  | { kind: "generated"; email: string; workspace_id: string; credentialsFile: string }
  | { kind: "none_needed" }
  | { kind: "missing" };

export async function ensureFirstAdmin(config: Config, tenancy: TenancyService): Promise<FirstAdmin> {
  if ((await tenancy.countWorkspaces()) > 0) return { kind: "none_needed" };
  if (config.bootstrapAdmin) {
    const r = await tenancy.bootstrap(config.bootstrapAdmin);
    return { kind: "from_env", email: config.bootstrapAdmin.email, workspace_id: r.workspace_id };
  }
  if (config.database.kind !== "sqlite") return { kind: "missing" };
  const password = randomBytes(18).toString("base64url");
  const r = await tenancy.bootstrap({ email: GENERATED_ADMIN_EMAIL, password, workspaceName: "Default workspace" });
  const credentialsFile = join(config.dataDir, "initial-admin.json");
  writeFileSync(credentialsFile, JSON.stringify({ email: GENERATED_ADMIN_EMAIL, password, workspace_id: r.workspace_id }, null, 2) + "\n", { mode: 0o600 });
  return { kind: "generated", email: GENERATED_ADMIN_EMAIL, workspace_id: r.workspace_id, credentialsFile };
}
