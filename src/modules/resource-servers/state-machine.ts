// The resource-server state machine (spec "States and transitions"), in one place so every
// service asks the same questions. Allowed:
//   (none)       -> pending_scan   registration
//   pending_scan -> needs_setup    scan succeeds        pending_scan -> scan_failed  scan fails
//   needs_setup  -> ready          activation (checklist green)
//   needs_setup  -> scan_failed    scan fails           scan_failed  -> needs_setup  scan succeeds
// Never: anything out of `ready` (no un-activate; a rescan of a ready server keeps it ready),
// and `scan_failed -> pending_scan` (nothing leads back to pending_scan).
import { conflict } from "../../shared/errors";

export const SERVER_STATES = ["pending_scan", "needs_setup", "ready", "scan_failed"] as const;
export type ServerState = (typeof SERVER_STATES)[number];

export const SCAN_STATUSES = ["success", "failed", "in_progress"] as const;
export type ScanStatus = (typeof SCAN_STATUSES)[number];

export function asState(value: string): ServerState {
  if ((SERVER_STATES as readonly string[]).includes(value)) return value as ServerState;
  throw new Error(`unknown resource server state ${value}`);
}

/** The state after a scan ends. A ready server stays ready whatever the scan did. */
export function stateAfterScan(from: ServerState, outcome: "success" | "failure"): ServerState {
  if (from === "ready") return "ready";
  return outcome === "success" ? "needs_setup" : "scan_failed";
}

/** Why `from` cannot be activated, or undefined when the state allows it (the checklist decides then). */
export function activationBlockedByState(from: ServerState): string | undefined {
  switch (from) {
    case "needs_setup":
      return undefined;
    case "pending_scan":
      return "cannot activate: the server has not been scanned yet (state pending_scan); run a successful rescan first";
    case "scan_failed":
      return "cannot activate: the last scan failed (state scan_failed); fix the server and rescan until it succeeds";
    case "ready":
      return "cannot activate: the server is already ready; activation happens once and there is no un-activate";
  }
}

export function assertCanActivate(from: ServerState): void {
  const why = activationBlockedByState(from);
  if (why) throw conflict(why);
}

/** Drift events are recorded only after launch (spec "Events"). */
export const recordsDrift = (state: string): boolean => state === "ready";
