// Builds the end-user sign-in pieces. The ports connect it to the other modules without this
// module importing them: clients (lookup), resource servers (registry), tenancy (passwords) and
// the one scope resolver (rbac).
import type { Db } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { AuthorizationCodes } from "./authorization-codes";
import { FirstTimeGrant, type GrantRole } from "./first-time-grant";
import { RefreshTokens, type RefreshRotationSettings } from "./refresh-tokens";
import { SignInService, type SignInPorts } from "./signin-service";
import { TicketSealer } from "./tickets";
import { UsedLoginTickets } from "./used-login-tickets";

export interface SignInDeps {
  db: Db;
  clock: Clock;
  ids: IdGenerator;
  /** Key for the page tickets' MAC (derived from the master key). */
  ticketKey: Buffer;
  issuer: string;
  ports: SignInPorts;
  /** rbac's first-time grant (BindingService.grantFirstTime). */
  grantRole: GrantRole;
  /** Refresh rotation: the successor key (derived from the master key) and the retry grace (TOOLGATE_REFRESH_GRACE_SECONDS). */
  refresh: RefreshRotationSettings;
}

export interface SignInServices {
  service: SignInService;
  codes: AuthorizationCodes;
  refreshTokens: RefreshTokens;
  firstTimeGrant: FirstTimeGrant;
}

export function createSignIn(deps: SignInDeps): SignInServices {
  const codes = new AuthorizationCodes(deps.db, deps.clock, deps.ids);
  const refreshTokens = new RefreshTokens(deps.db, deps.clock, deps.ids, deps.refresh);
  const firstTimeGrant = new FirstTimeGrant(deps.db, deps.clock, deps.grantRole);
  const tickets = new TicketSealer(deps.ticketKey, () => deps.clock.now());
  const service = new SignInService(deps.ports, tickets, codes, new UsedLoginTickets(deps.db, deps.clock), firstTimeGrant, deps.issuer, deps.ids);
  return { service, codes, refreshTokens, firstTimeGrant };
}
