// The setup checklist (docs/decisions/0014-setup-checklist.md) with what to do next for each gap,
// linking to the part of the page where it is done.
import type { SetupChecklistItemId } from "../../graphql/generated/graphql";
import type { App } from "./types";

const NEXT: Record<SetupChecklistItemId, { label: string; todo: string; section: string }> = {
  tools_known: { label: "Tools discovered", todo: "Scan the server (or add a tool by hand).", section: "scan" },
  scopes_defined: { label: "Scopes defined", todo: "Add a scope for the tools to require, or make every tool public.", section: "matrix" },
  all_tools_mapped: { label: "Every tool mapped", todo: "Tick at least one scope for each tool that is not public, then save.", section: "matrix" },
  access_policy_set: { label: "Access policy set", todo: "Choose a default role for first-time users, or turn the policy off explicitly.", section: "activation" },
};

export function SetupChecklist({ rs }: { rs: App }) {
  const next = rs.setup.items.find((i) => !i.ok);
  return (
    <section aria-labelledby="setup-title" className="panel">
      <h2 id="setup-title">Setup checklist</h2>
      <ol className="checklist">
        {rs.setup.items.map((i) => (
          <li key={i.id} className={i.ok ? "done" : "todo"}>
            <span className="mark" aria-hidden="true">
              {i.ok ? "✓" : "○"}
            </span>
            <span>
              <strong>{NEXT[i.id].label}</strong> <span className="visually-hidden">{i.ok ? "(done)" : "(to do)"}</span> — {i.detail}
              {!i.ok && (
                <>
                  {" "}
                  <a href={`#${NEXT[i.id].section}`}>{NEXT[i.id].todo}</a>
                </>
              )}
            </span>
          </li>
        ))}
      </ol>
      <p className="next">
        {rs.state === "ready"
          ? "Launched: the runtime enforces this policy."
          : rs.setup.canActivate
            ? "Every item is done: review the activation preview below and activate."
            : next
              ? `Next: ${NEXT[next.id].todo}`
              : rs.setup.reason}
      </p>
    </section>
  );
}
