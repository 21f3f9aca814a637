// Builds the cockpit schema. Every type file registers itself on the shared builder when it is
// imported, so adding an entity is one file in ./types and one import line below.
import { builder } from "./builder";
import "./types/root";
import "./types/scalars";
import "./types/enums";
import "./types/workspace";
import "./types/resource-server";
import "./types/resource-server-mutations";
import "./types/client";
import "./types/client-mutations";
import "./types/connection";
// Resource-server lifecycle: tools, scopes, setup, policy, drift (docs/lifecycle.md).
import "./types/tool";
import "./types/lifecycle";
import "./types/lifecycle-mutations";
// People and access (docs/people-and-access.md).
import "./types/user";
import "./types/membership";
import "./types/end-user";
import "./types/role";
import "./types/group";
import "./types/role-binding";
// The audit trail (docs/audit-and-integrations.md).
import "./types/audit-event";
// Access explained: posture, simulations, recent failures (docs/access-explained.md).
import "./types/access-views";
import "./types/application-access";
import "./types/access-changes";
// Enterprise-managed agents: access requests and agent connections (docs/enterprise-agents.md).
import "./types/access-request";
import "./types/identity-provider";

export const schema = builder.toSchema();
