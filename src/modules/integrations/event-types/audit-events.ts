// Every audit event is a message of its own action's type: `role_binding.created`,
// `client.secret_rotated`, `token.refused`, ... (src/modules/audit/actions.ts and the derived
// `<entity>.created|updated|deleted` names of src/storage/audit-capture.ts).
import { AUDITED_MODELS } from "../../../storage";
import { AUDIT_ACTIONS } from "../../audit";
import type { EventSource } from "./types";

export const auditEvents: EventSource = {
  types: [
    ...Object.values(AUDITED_MODELS).map((m) => ({ name: `${m.entity}.*`, description: `an administrator or the service created, updated or deleted a ${m.entity.replace(/_/g, " ")}` })),
    ...Object.values(AUDIT_ACTIONS).map((name) => ({ name, description: "a named audit event (docs/audit-and-integrations.md)" })),
  ],
  messages: (event) => [{ type: event.action, data: event }],
};
