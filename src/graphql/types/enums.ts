// Enums used by more than one entity file. Values are the wire strings of the REST API and the
// database (lower case), so cockpits can use one vocabulary for both APIs.
import { builder } from "../builder";
import { MEMBERSHIP_TYPES } from "../../shared/actor";
import { REGISTRATION_MODES, SCAN_STATUSES, SERVER_STATES } from "../../modules/resource-servers";
import { CLIENT_KINDS, CLIENT_STATUSES } from "../../modules/clients";

export const MembershipTypeEnum = builder.enumType("MembershipType", { values: MEMBERSHIP_TYPES });

/** How a client came to exist; a resource server lists the modes it accepts. */
export const RegistrationModeEnum = builder.enumType("RegistrationMode", { values: REGISTRATION_MODES });

// Spec "Resource server": the lifecycle states and the outcome of the last scan (the state
// machine owns the lists, so a new state shows up here and in schema.graphql by itself).
export const ResourceServerStateEnum = builder.enumType("ResourceServerState", { values: SERVER_STATES });
export const ScanStatusEnum = builder.enumType("ScanStatus", { values: SCAN_STATUSES });

// Spec "Client": the listing filters.
export const ClientKindEnum = builder.enumType("ClientKind", { values: CLIENT_KINDS });
export const ClientStatusEnum = builder.enumType("ClientStatus", { values: CLIENT_STATUSES });

/** Narrows a stored string to an enum's values; a value outside them is a bug, so it fails loudly (masked). */
export function enumValue<T extends string>(values: readonly T[], value: string, what: string): T {
  if ((values as readonly string[]).includes(value)) return value as T;
  throw new Error(`unexpected ${what} value in the database: ${value}`);
}

/** Json list columns (scopes, URIs, modes) hold string arrays; anything else reads as empty. */
export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
