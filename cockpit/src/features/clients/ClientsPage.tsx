// Clients and connections: per application, the pre-registered clients and the connections of
// dynamically registered (dcr) and metadata-document (cimd) clients, filtered by the spec's kinds
// (Agents, Human apps, M2M, CLI) and statuses (Pending approval, Approved, Revoked). Register a
// client (?action=create), rotate a secret with grace, approve staged redirect URIs, revoke.
import { useState } from "react";
import { Link, useSearchParams } from "react-router";
import { useGraph } from "../../app/data";
import { canWrite, useSignedIn } from "../../app/session";
import { Badge, DataTable, When } from "../../components/DataTable";
import { ErrorAlert, Loading, Notice } from "../../components/ErrorAlert";
import { usePageTitle } from "../../components/Page";
import { SelectField } from "../../components/TextField";
import { ClientsDocument, type ClientKind, type ClientStatus, type ClientsQuery } from "../../graphql/generated/graphql";
import { toApplication } from "../applications/routes";
import { ApproveRedirectsDialog, RevokeDialog, RotateSecretDialog } from "./ClientActions";
import { CreateClientDialog } from "./CreateClientDialog";
import { KIND_LABEL, KIND_ONE, STATUS_LABEL } from "./labels";

export type Server = ClientsQuery["resourceServers"][number];
export type PreregClient = Server["clients"][number];
export type Conn = Server["connections"][number];
export const CLIENTS_KEY = "clients";

type Action =
  | { kind: "rotate"; rs: Server; client: PreregClient }
  | { kind: "revoke"; rs: Server; clientId: string; name: string; scopes: string[]; prereg: boolean }
  | { kind: "redirects"; rs: Server; clientId: string; name: string; current: string[]; staged: string[] };

const statusTone = (s: ClientStatus) => (s === "approved" ? "ok" : s === "pending" ? "warn" : "danger");

export function ClientsPage() {
  usePageTitle("Clients and connections");
  const s = useSignedIn();
  const writable = canWrite(s);
  const [params, setParams] = useSearchParams();
  const kind = (params.get("kind") || null) as ClientKind | null;
  const status = (params.get("status") || null) as ClientStatus | null;
  const q = useGraph([CLIENTS_KEY], ClientsDocument, { first: 1000, kind, status });
  const [action, setAction] = useState<Action | null>(null);
  const [notice, setNotice] = useState("");
  const setFilter = (k: string, v: string) => {
    const next = new URLSearchParams(params);
    if (v) next.set(k, v);
    else next.delete(k);
    setParams(next);
  };
  const servers = q.data?.resourceServers ?? [];
  return (
    <>
      <div className="page-head">
        <h1>Clients and connections</h1>
        {writable && (
          <button type="button" className="button-primary" onClick={() => setFilter("action", "create")} disabled={servers.length === 0}>
            Register a client
          </button>
        )}
      </div>
      <form className="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <SelectField label="Kind" name="kind" value={kind ?? ""} onChange={(e) => setFilter("kind", e.target.value)}>
          <option value="">All kinds</option>
          {Object.entries(KIND_LABEL).map(([v, l]) => (
            <option key={v} value={v}>
              {l}
            </option>
          ))}
        </SelectField>
        <SelectField label="Status" name="status" value={status ?? ""} onChange={(e) => setFilter("status", e.target.value)}>
          <option value="">All statuses</option>
          {Object.entries(STATUS_LABEL).map(([v, l]) => (
            <option key={v} value={v}>
              {l}
            </option>
          ))}
        </SelectField>
      </form>
      <Notice>{notice}</Notice>
      {q.isPending ? (
        <Loading what="clients" />
      ) : q.error ? (
        <ErrorAlert error={q.error} />
      ) : servers.length === 0 ? (
        <p>
          No application yet. <Link to="/applications?action=register">Register an MCP server</Link> first: clients are registered for one.
        </p>
      ) : (
        servers.map((rs) => {
          const connections = rs.connections.filter((c) => !kind || c.client.kind === kind);
          return (
            <section key={rs.id} aria-labelledby={`rs-${rs.id}`} className="panel">
              <h2 id={`rs-${rs.id}`}>
                <Link to={toApplication(rs.id)}>{rs.name}</Link>
              </h2>
              <DataTable<PreregClient>
                caption={`Pre-registered clients of ${rs.name}`}
                rows={rs.clients}
                rowKey={(c) => c.id}
                empty="No pre-registered client matches."
                columns={[
                  { header: "Client", rowHeader: true, cell: (c) => <>{c.clientName} <code className="small">{c.clientId}</code></> },
                  { header: "Kind", cell: (c) => KIND_ONE[c.kind] },
                  { header: "Status", cell: (c) => <Badge tone={statusTone(c.status)}>{STATUS_LABEL[c.status]}</Badge> },
                  { header: "Allowed scopes", cell: (c) => (c.allowedScopes.length ? c.allowedScopes.join(" ") : <span className="muted">none</span>) },
                  { header: "Last connected", cell: (c) => <When at={c.lastUsedAt} /> },
                ]}
                actions={(c) =>
                  writable && c.status !== "revoked" ? (
                    <>
                      {c.tokenEndpointAuthMethod !== "none" && (
                        <button type="button" className="button-small" onClick={() => setAction({ kind: "rotate", rs, client: c })}>
                          Rotate secret of {c.clientName}
                        </button>
                      )}
                      {c.stagedRedirectUris && (
                        <button type="button" className="button-small" onClick={() => setAction({ kind: "redirects", rs, clientId: c.clientId, name: c.clientName, current: c.redirectUris, staged: c.stagedRedirectUris! })}>
                          Review redirect change of {c.clientName}
                        </button>
                      )}
                      <button type="button" className="button-small button-danger" onClick={() => setAction({ kind: "revoke", rs, clientId: c.clientId, name: c.clientName, scopes: c.allowedScopes, prereg: true })}>
                        Revoke {c.clientName}
                      </button>
                    </>
                  ) : null
                }
              />
              <DataTable<Conn>
                caption={`Connections to ${rs.name}`}
                rows={connections}
                rowKey={(c) => c.id}
                empty="No connection matches. Agents and apps that register themselves (DCR) or publish a metadata document (CIMD) appear here after their first sign-in."
                columns={[
                  { header: "Client", rowHeader: true, cell: (c) => <>{c.client.clientName} <span className="muted">(unverified name)</span> <code className="small">{c.clientId}</code></> },
                  { header: "Kind", cell: (c) => `${KIND_ONE[c.client.kind]} · ${c.client.registrationMode}` },
                  { header: "Status", cell: (c) => <Badge tone={statusTone(c.status)}>{STATUS_LABEL[c.status]}</Badge> },
                  { header: "Role and scopes granted", cell: (c) => <>{c.rolesGranted.map((r) => r.roleName).join(", ") || <span className="muted">no role</span>} · {c.scopesGranted.join(" ") || "no scope"}</> },
                  { header: "Last connected", cell: (c) => <When at={c.lastConnectedAt} /> },
                ]}
                actions={(c) =>
                  writable && c.status !== "revoked" ? (
                    <>
                      {c.client.stagedRedirectUris && (
                        <button type="button" className="button-small" onClick={() => setAction({ kind: "redirects", rs, clientId: c.clientId, name: c.client.clientName, current: c.client.redirectUris, staged: c.client.stagedRedirectUris! })}>
                          Review redirect change of {c.client.clientName}
                        </button>
                      )}
                      <button type="button" className="button-small button-danger" onClick={() => setAction({ kind: "revoke", rs, clientId: c.clientId, name: c.client.clientName, scopes: c.scopesGranted, prereg: false })}>
                        Revoke {c.client.clientName}
                      </button>
                    </>
                  ) : null
                }
              />
            </section>
          );
        })
      )}
      {params.get("action") === "create" && servers.length > 0 && <CreateClientDialog servers={servers} onClose={() => setFilter("action", "")} />}
      {action?.kind === "rotate" && <RotateSecretDialog rs={action.rs} client={action.client} onClose={() => setAction(null)} />}
      {action?.kind === "revoke" && <RevokeDialog {...action} onClose={() => setAction(null)} onDone={(m) => (setAction(null), setNotice(m))} />}
      {action?.kind === "redirects" && <ApproveRedirectsDialog {...action} onClose={() => setAction(null)} onDone={(m) => (setAction(null), setNotice(m))} />}
    </>
  );
}
