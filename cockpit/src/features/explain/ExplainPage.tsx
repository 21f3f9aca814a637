// Explain: may this user call this tool (through this client)? The access simulation answers with
// its decision trace, drawn step by step, and the safest fix, previewed before it is applied
// (docs/access-explained.md). The inputs live in the URL, so an answer can be linked to.
import { useState, type FormEvent } from "react";
import { useSearchParams } from "react-router";
import { useGraph } from "../../app/data";
import { Badge } from "../../components/DataTable";
import { ErrorAlert, Loading } from "../../components/ErrorAlert";
import { usePageTitle } from "../../components/Page";
import { SelectField } from "../../components/TextField";
import { ExplainApplicationDocument, ExplainChoicesDocument } from "../../graphql/generated/graphql";
import { DecisionTrace } from "./DecisionTrace";
import { FixPanel } from "./FixPanel";
import { useSimulation, type SimulationInputs } from "./useSimulation";

const FIELDS = ["app", "user", "tool", "client"] as const;

export function ExplainPage() {
  usePageTitle("Explain");
  const [params, setParams] = useSearchParams();
  const asked: SimulationInputs = { app: params.get("app") ?? "", user: params.get("user") ?? "", tool: params.get("tool") ?? "", client: params.get("client") ?? "" };
  const [form, setForm] = useState(asked);
  const choices = useGraph(["explain-choices"], ExplainChoicesDocument, {});
  const appQ = useGraph(["explain-application", form.app], ExplainApplicationDocument, { id: form.app }, { enabled: Boolean(form.app) });
  const sim = useSimulation(asked);
  const rs = appQ.data?.resourceServer;
  const apps = choices.data?.resourceServers ?? [];
  const members = choices.data?.memberships ?? [];
  const email = (id: string) => members.find((m) => m.userId === id)?.user?.email ?? id;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setParams(Object.fromEntries(FIELDS.filter((f) => form[f]).map((f) => [f, form[f]])));
  };
  const askedApp = apps.find((a) => a.id === asked.app);
  return (
    <>
      <h1>Explain</h1>
      <p className="lede">May this user call this tool? The same checks introspection and the SDK make, one by one, and the narrowest change that would allow it. Nothing is written until you apply a fix.</p>
      {choices.error && <ErrorAlert error={choices.error} />}
      <form className="panel" aria-labelledby="sim-title" onSubmit={submit}>
        <h2 id="sim-title">Simulate a call</h2>
        <div className="filters">
          <SelectField label="Application" name="app" value={form.app} required onChange={(e) => setForm({ ...form, app: e.target.value, tool: "", client: "" })}>
            <option value="">Choose an application</option>
            {apps.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </SelectField>
          <SelectField label="User" name="user" value={form.user} required onChange={(e) => setForm({ ...form, user: e.target.value })}>
            <option value="">Choose a user</option>
            {members.map((m) => (
              <option key={m.userId} value={m.userId}>
                {m.user?.email ?? m.userId}
                {m.status !== "active" ? ` (${m.status})` : ""}
              </option>
            ))}
          </SelectField>
          <SelectField label="Tool" name="tool" value={form.tool} required disabled={!rs} onChange={(e) => setForm({ ...form, tool: e.target.value })}>
            <option value="">{rs ? "Choose a tool" : "Choose an application first"}</option>
            {(rs?.tools ?? []).map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
                {t.isPublic ? " (public)" : ""}
              </option>
            ))}
          </SelectField>
          <SelectField label="Client (optional)" name="client" value={form.client} disabled={!rs} onChange={(e) => setForm({ ...form, client: e.target.value })}>
            <option value="">Any client</option>
            {(rs?.clients ?? []).map((c) => (
              <option key={c.clientId} value={c.clientId}>
                {c.clientName} ({c.status})
              </option>
            ))}
          </SelectField>
        </div>
        <div className="actions">
          <button type="submit" className="button-primary">
            Run the simulation
          </button>
        </div>
      </form>
      {sim.isFetching && <Loading what="the simulation" />}
      <ErrorAlert error={sim.error} />
      {sim.data && (
        <section aria-labelledby="verdict-title" className="panel">
          <h2 id="verdict-title">
            {sim.data.tool.name} for {email(asked.user)}: {sim.data.verdict === "allowed" ? <Badge tone="ok">Allowed</Badge> : <Badge tone="danger">Denied</Badge>}
          </h2>
          <dl className="facts">
            <dt>Scopes it needs (any one)</dt>
            <dd>{sim.data.tool.public ? "none: the tool is public" : sim.data.required_scopes.join(", ") || "none mapped"}</dd>
            <dt>Scopes the user holds there</dt>
            <dd>{sim.data.effective_scopes.join(", ") || "none"}</dd>
            <dt>Bindings granting a needed scope</dt>
            <dd>{sim.data.matched_bindings.map((b) => `${b.role_name} (${b.via})`).join(", ") || "none"}</dd>
            <dt>Decision</dt>
            <dd>
              <code>{sim.data.decision_id}</code> at <time dateTime={sim.data.evaluated_at}>{new Date(sim.data.evaluated_at).toLocaleString()}</time>
            </dd>
          </dl>
          <h3>Decision trace</h3>
          <DecisionTrace sim={sim.data} />
        </section>
      )}
      {sim.data?.verdict === "denied" && sim.data.fix && askedApp && (
        <FixPanel key={sim.data.decision_id} fix={sim.data.fix} text={sim.data.safest_fix ?? ""} app={askedApp} email={email} />
      )}
      {sim.data?.verdict === "denied" && !sim.data.fix && <p className="panel">{sim.data.safest_fix ?? "No change in Toolgate can allow this call."}</p>}
    </>
  );
}
