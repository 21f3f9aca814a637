// The spec's two badges of the Applications screen, derived and never stored ("Resource server"):
// Discovered = state is needs_setup and scan_generation > 0; Not launched = state is not ready.
import type { ResourceServerState } from "../../graphql/generated/graphql";

export function badgesOf(s: { state: ResourceServerState; scanGeneration: number }) {
  return { discovered: s.state === "needs_setup" && s.scanGeneration > 0, notLaunched: s.state !== "ready" };
}

export const STATE_LABEL: Record<ResourceServerState, string> = {
  pending_scan: "Pending scan",
  needs_setup: "Needs setup",
  ready: "Ready",
  scan_failed: "Scan failed",
};

export const stateTone = (s: ResourceServerState) => (s === "ready" ? "ok" : s === "scan_failed" ? "danger" : "warn");
