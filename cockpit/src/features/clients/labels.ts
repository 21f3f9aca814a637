import type { ClientKind, ClientStatus } from "../../graphql/generated/graphql";

/** The spec's client list filters ("Client": Listing filters). */
export const KIND_LABEL: Record<ClientKind, string> = { agent: "Agents", human_app: "Human apps", m2m: "M2M", cli: "CLI" };
export const STATUS_LABEL: Record<ClientStatus, string> = { pending: "Pending approval", approved: "Approved", disabled: "Disabled", revoked: "Revoked" };
export const KIND_ONE: Record<ClientKind, string> = { agent: "Agent", human_app: "Human app", m2m: "Machine-to-machine", cli: "Command-line tool" };
