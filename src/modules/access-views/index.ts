// Access views (spec capability 7, docs/access-explained.md): workspace-scoped read models of who
// may call what and why, and access simulations with a decision trace. Reads only: this module
// owns no table. Every answer about access comes from the RBAC module's ScopeResolver (what
// introspection uses) and the compiled runtime policy (what the SDK enforces).
import type { Db } from "../../storage";
import type { Clock } from "../../shared/clock";
import type { IdGenerator } from "../../shared/ids";
import { AccessSimulationService, type SimulationPorts, type ChangePreviewPort } from "./simulation";
import { ApplicationEffectiveAccessService } from "./effective-access";
import { AccessReadModels } from "./read-models";
import { FailureExplanations, type AuditEventsPort } from "./failures";

export { AccessSimulationService, SIMULATION_CHECKS, type SimulationPorts, type SimulationResult, type ChangePreviewPort, type FixChange, type FixImpact, type SimulationInput, type TraceStep } from "./simulation";
export { ApplicationEffectiveAccessService, type ApplicationEffectiveAccess } from "./effective-access";
export { simulationInputSchema, effectiveAccessQuery, postureQuery, toolExposureQuery, scopesQuery, scopeHoldersQuery, assignmentsQuery, endUserSummaryQuery, recentFailuresQuery } from "./schemas";
export { AccessReadModels, badges, type PostureStats } from "./read-models";
export { FailureExplanations, MAX_FAILURES, type FailureItem, type AuditEventsPort } from "./failures";

export interface AccessViews {
  simulations: AccessSimulationService;
  effectiveAccess: ApplicationEffectiveAccessService;
  readModels: AccessReadModels;
  failures: FailureExplanations;
}

export function createAccessViews(deps: { db: Db; clock: Clock; ids: IdGenerator; ports: SimulationPorts; auditEvents: AuditEventsPort; previewChange: ChangePreviewPort }): AccessViews {
  return {
    simulations: new AccessSimulationService(deps.db, deps.ports, deps.clock, deps.ids, deps.previewChange),
    effectiveAccess: new ApplicationEffectiveAccessService(deps.db, deps.ports),
    readModels: new AccessReadModels(deps.db, deps.ports, deps.clock),
    failures: new FailureExplanations(deps.auditEvents),
  };
}
