// The audit trail's module: reading events (AuditEventService), the names of events
// (AUDIT_ACTIONS), counted hot-path events (SecurityCounters), retention with signed checkpoints
// and verification. Appending is the unit of work's (src/storage/unit-of-work.ts); services name
// their event with recordAuditEvent, re-exported here as the module's API.
export { recordAuditEvent, type AuditEventInput } from "../../storage";
export { AUDIT_ACTIONS, type AuditAction } from "./actions";
export { AuditEventService } from "./audit-service";
export { AUDIT_EVENT_LIST, auditEventFiltersSchema, listAuditEventsQuerySchema, auditEventWhere, type AuditEventFilters, type ListAuditEventsQuery } from "./schemas";
export { toAuditEventView, type AuditEventView } from "./views";
export { SecurityCounters, MAX_COUNTER_KEYS, type CountedEvent } from "./security-counters";
export { AuditRetention, type PruneResult } from "./retention";
export { verifyAuditTrail, type VerifyReport, type ChainReport, type VerifyOptions } from "./verify";
export { signCheckpoint, verifyCheckpoint, CHECKPOINT_TYP } from "./checkpoints";
