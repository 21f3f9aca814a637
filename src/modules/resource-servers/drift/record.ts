// Writing drift events. Called inside the transaction of the change that causes the event
// (house rule: events commit or roll back with their cause). Drift is "a policy change after
// launch", so nothing is recorded unless the server is `ready`. Every event also changes the
// runtime policy document (its drift_events array); the unit of work drops that cached policy.
import type { DbOrTx } from "../../../storage";
import type { IdGenerator } from "../../../shared/ids";
import { recordsDrift } from "../state-machine";

/** The spec's five kinds and their payloads, exactly as its Events table names them, plus tool_definition_changed. */
export interface DriftPayloads {
  scope_deleted: { prior_scope_id: string; prior_scope_name: string; tools_affected: number };
  tool_unmapped: { tool_name: string; prior_scope_id: string };
  default_role_disabled: { prior_default_role: string };
  default_role_changed: { prior_default_role: string; new_default_role: string };
  secret_rotated: { rotated_by: string; rotated_at: string };
  /** Beyond the spec's five (docs/lifecycle.md "Drift events"): a scan or manifest reports a definition that differs from the approved one. */
  tool_definition_changed: { tool_name: string; approved_hash: string; live_hash: string };
}
export type DriftEventType = keyof DriftPayloads;
export const DRIFT_EVENT_TYPES: readonly DriftEventType[] = ["scope_deleted", "tool_unmapped", "default_role_disabled", "default_role_changed", "secret_rotated", "tool_definition_changed"];

export interface DriftContext {
  server: { id: string; tenantId: string; state: string };
  /** The administrator; null when the cause is the server's runtime (a manifest push). */
  actorId: string | null;
  at: Date;
}

export class DriftRecorder {
  constructor(
    private readonly ids: IdGenerator,
  ) {}

  /** Records the events when the server is ready; answers how many were written. */
  async record<T extends DriftEventType>(tx: DbOrTx, ctx: DriftContext, type: T, payloads: DriftPayloads[T][]): Promise<number> {
    if (!recordsDrift(ctx.server.state) || payloads.length === 0) return 0;
    await tx.driftEvent.createMany({
      data: payloads.map((payload) => ({
        id: this.ids.uuid(),
        tenantId: ctx.server.tenantId,
        rsId: ctx.server.id,
        eventType: type,
        eventPayload: payload as object,
        occurredAt: ctx.at,
        occurredBy: ctx.actorId,
      })),
    });
    return payloads.length;
  }
}
