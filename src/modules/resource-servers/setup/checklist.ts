// The setup checklist (docs/decisions/0014-setup-checklist.md), computed from rows and never
// stored, so the setup screen, validate, activation-preview and activate always judge the same
// facts the same way.
// Stale tools (gone from the newest scan) are left out: they cannot block or count as setup.
import type { ServerState } from "../state-machine";
import { activationBlockedByState } from "../state-machine";

export const CHECKLIST_IDS = ["tools_known", "scopes_defined", "all_tools_mapped", "access_policy_set"] as const;
export type ChecklistId = (typeof CHECKLIST_IDS)[number];

export interface ChecklistItem {
  id: ChecklistId;
  ok: boolean;
  detail: string;
}

export interface ChecklistFacts {
  state: ServerState;
  tools: { name: string; source: string; isPublic: boolean; stale: boolean; scopeKeys: string[] }[];
  scopeCount: number;
  policy: { enabled: boolean; defaultRoleId: string | null; defaultRoleName: string | null } | null;
}

export interface Checklist {
  state: ServerState;
  checklist: ChecklistItem[];
  can_activate: boolean;
  /** Present when the state, not the checklist, is what stops activation. */
  reason?: string;
}

const MAX_NAMED = 10;
const nameList = (names: string[]) => names.slice(0, MAX_NAMED).map((n) => JSON.stringify(n)).join(", ") + (names.length > MAX_NAMED ? `, and ${names.length - MAX_NAMED} more` : "");
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export function buildChecklist(f: ChecklistFacts): Checklist {
  const live = f.tools.filter((t) => !t.stale);
  const bySource = (s: string) => live.filter((t) => t.source === s).length;
  const unmapped = live.filter((t) => !t.isPublic && t.scopeKeys.length === 0).map((t) => t.name);
  const allPublic = live.length > 0 && live.every((t) => t.isPublic);

  const items: ChecklistItem[] = [
    live.length > 0
      ? { id: "tools_known", ok: true, detail: `${plural(live.length, "tool")} known (${bySource("scan")} scanned, ${bySource("manifest")} from the manifest, ${bySource("manual")} added by hand)` }
      : { id: "tools_known", ok: false, detail: "no tools known yet: run a rescan, push a manifest or add a tool by hand" },
    f.scopeCount > 0
      ? { id: "scopes_defined", ok: true, detail: `${plural(f.scopeCount, "scope")} defined` }
      : allPublic
        ? { id: "scopes_defined", ok: true, detail: "no scopes defined, and none needed: every tool is public" }
        : { id: "scopes_defined", ok: false, detail: "no scopes defined: create at least one scope (or mark every tool public)" },
    unmapped.length === 0
      ? { id: "all_tools_mapped", ok: live.length > 0, detail: live.length > 0 ? "every tool has a scope or is public" : "no tools to map yet" }
      : { id: "all_tools_mapped", ok: false, detail: `${plural(unmapped.length, "tool")} with no scope that are not public: ${nameList(unmapped)}` },
    policyItem(f.policy),
  ];
  const blocked = activationBlockedByState(f.state);
  return {
    state: f.state,
    checklist: items,
    can_activate: !blocked && items.every((i) => i.ok),
    ...(blocked ? { reason: blocked } : {}),
  };
}

function policyItem(p: ChecklistFacts["policy"]): ChecklistItem {
  if (!p) return { id: "access_policy_set", ok: false, detail: "the access policy is not set: enable it with a default role, or disable it explicitly" };
  if (!p.enabled) return { id: "access_policy_set", ok: true, detail: "explicitly disabled: first-time users get no role" };
  if (!p.defaultRoleId) return { id: "access_policy_set", ok: false, detail: "enabled without a default role: choose a default role or disable the policy" };
  return { id: "access_policy_set", ok: true, detail: `enabled: first-time users get the role ${JSON.stringify(p.defaultRoleName ?? p.defaultRoleId)}` };
}

export const failedIds = (c: Checklist): ChecklistId[] => c.checklist.filter((i) => !i.ok).map((i) => i.id);
