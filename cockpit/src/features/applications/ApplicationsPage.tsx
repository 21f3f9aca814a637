// Applications: every MCP server of the workspace with its state, the spec's two derived badges,
// posture figures (tools mapped, public, denied; setup progress), open drift and clients; and
// "Register an MCP server" (?action=register keeps the dialog in the URL).
import { useState } from "react";
import { Link, useSearchParams } from "react-router";
import { canWrite, useSignedIn } from "../../app/session";
import { useGraph } from "../../app/data";
import { Badge, DataTable } from "../../components/DataTable";
import { ErrorAlert, Loading } from "../../components/ErrorAlert";
import { usePageTitle } from "../../components/Page";
import { ApplicationsDocument, type ApplicationsQuery } from "../../graphql/generated/graphql";
import { badgesOf, STATE_LABEL, stateTone } from "./badges";
import { RegisterDialog } from "./RegisterDialog";
import { toApplication } from "./routes";

type Row = ApplicationsQuery["resourceServers"][number];
const PAGE = 100;

export function ApplicationsPage() {
  usePageTitle("Applications");
  const s = useSignedIn();
  const [params, setParams] = useSearchParams();
  const [first, setFirst] = useState(PAGE);
  const q = useGraph(["applications"], ApplicationsDocument, { first });
  const rows = q.data?.resourceServers ?? [];
  return (
    <>
      <div className="page-head">
        <h1>Applications</h1>
        {canWrite(s) && (
          <button type="button" className="button-primary" onClick={() => setParams({ action: "register" })}>
            Register an MCP server
          </button>
        )}
      </div>
      <p className="lede">The MCP servers Toolgate protects in this workspace, from registration to launch.</p>
      {q.isPending ? (
        <Loading what="applications" />
      ) : q.error ? (
        <ErrorAlert error={q.error} />
      ) : (
        <DataTable<Row>
          caption="Applications"
          rows={rows}
          rowKey={(r) => r.id}
          empty={<>No MCP server is registered yet. Register one to start: Toolgate scans its tools, you map them to scopes, then launch.</>}
          more={{ hasMore: rows.length === first && first < 1000, onMore: () => setFirst((n) => Math.min(n + PAGE, 1000)) }}
          columns={[
            { header: "Name", rowHeader: true, cell: (r) => <Link to={toApplication(r.id)}>{r.name}</Link> },
            {
              header: "State",
              cell: (r) => {
                const b = badgesOf(r);
                return (
                  <span className="badges">
                    <Badge tone={stateTone(r.state)}>{STATE_LABEL[r.state]}</Badge>
                    {b.discovered && <Badge tone="info">Discovered</Badge>}
                    {b.notLaunched && <Badge>Not launched</Badge>}
                  </span>
                );
              },
            },
            {
              header: "Setup",
              cell: (r) => `${r.setup.items.filter((i) => i.ok).length} of ${r.setup.items.length} done`,
            },
            {
              header: "Tools",
              cell: (r) => {
                const mapped = r.scopeMatrix.entries.length - r.scopeMatrix.publicTools.length;
                return (
                  <span>
                    {mapped} mapped, {r.scopeMatrix.publicTools.length} public, {r.scopeMatrix.deniedTools.length} denied
                  </span>
                );
              },
            },
            { header: "Open drift", cell: (r) => (r.driftEvents.length > 0 ? <Badge tone="warn">{r.driftEvents.length >= 100 ? "100+" : r.driftEvents.length}</Badge> : <span className="muted">none</span>) },
            {
              header: "Clients",
              cell: (r) => (
                <span>
                  {r.clientCounts.approved} approved{r.clientCounts.pending > 0 && <>, <strong>{r.clientCounts.pending} pending</strong></>}
                </span>
              ),
            },
          ]}
        />
      )}
      {params.get("action") === "register" && <RegisterDialog onClose={() => setParams({})} />}
    </>
  );
}
