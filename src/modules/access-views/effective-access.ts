// GET /svc/v1/applications/:id/effective-access?user_id=: the scope resolver's answer for one user
// on one application, with the path of every grant: user -> (group) -> binding -> role -> scope ->
// tool. The scopes and the binding set come from the ScopeResolver (what introspection uses); the
// tools from the compiled runtime policy (what the SDK enforces); the database is read for names.
import type { Db } from "../../storage";
import { type Actor, assertCanRead } from "../../shared/actor";
import { findApplication } from "./application";
import { effectiveAccessOnApplications } from "./effective-access-many";
import type { SimulationPorts } from "./simulation";

export interface EffectiveAccessPath {
  via: string;
  binding_id: string;
  role_id: string;
  role_name: string;
  scope_type: string | null;
  scope_id: string | null;
  expires_at: string | null;
  scopes: { scope: string; tools: string[] }[];
}

export interface ApplicationEffectiveAccess {
  application_id: string;
  application_state: string;
  user_id: string;
  user_email: string;
  /** Where the account came from: the identity provider of its most recent federated sign-in (null: Toolgate's own factors only), and when. */
  identity_provider: string | null;
  last_sign_in_at: string | null;
  active: boolean;
  membership_status: string | null;
  end_user_status: string;
  /** What the user holds on the application now (the resolver's answer; empty when not active). */
  scopes: string[];
  /** Tools the user may call now: public ones and those mapped to a held scope (none before activation). */
  tools: { tool_id: string; name: string; public: boolean; scopes: string[] }[];
  paths: EffectiveAccessPath[];
  /** Bindings that reach the application but do not count now (expired), for the record. */
  expired_bindings: { binding_id: string; role_name: string; via: string; expires_at: string | null }[];
}

export class ApplicationEffectiveAccessService {
  constructor(
    private readonly db: Db,
    private readonly ports: Pick<SimulationPorts, "resolver" | "policy">,
  ) {}

  /** One application's answer: the many-applications reader (effective-access-many.ts) with a list of one, so the two cannot differ. */
  async forUser(actor: Actor, applicationId: string, userId: string): Promise<ApplicationEffectiveAccess> {
    assertCanRead(actor);
    const app = await findApplication(this.db, actor.tenantId, applicationId);
    const [answer] = await effectiveAccessOnApplications(this.db, this.ports, actor, userId, [app.id]);
    return answer!;
  }
}
