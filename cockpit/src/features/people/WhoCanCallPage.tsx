// For one tool: who can call it. A public tool: anyone with a token for the server. Otherwise the
// roles granting one of its scopes on this server, and who holds them now (users directly, the
// members of groups, clients as service accounts), each with the binding that gives it.
import { Link, useParams } from "react-router";
import { useGraph } from "../../app/data";
import { DataTable, When } from "../../components/DataTable";
import { ErrorAlert, Loading } from "../../components/ErrorAlert";
import { usePageTitle } from "../../components/Page";
import { WhoCanCallDocument } from "../../graphql/generated/graphql";
import { toApplication } from "../applications/routes";
import { toUser } from "./routes";

interface Caller {
  key: string;
  who: React.ReactNode;
  through: string;
  role: string;
  expiresAt: string | null;
}

export function WhoCanCallPage() {
  const { rs = "", tool = "" } = useParams();
  const q = useGraph(["people", "callers", rs], WhoCanCallDocument, { rs });
  const server = q.data?.resourceServer;
  const t = server?.tools.find((x) => x.id === tool);
  usePageTitle(t ? `Who can call ${t.name}` : "Who can call");
  if (q.isPending) return <Loading what="callers" />;
  if (q.error) return <ErrorAlert error={q.error} />;
  if (!server || !t) return <><h1>Tool not found</h1><p>No tool of this workspace's applications has this id.</p></>;
  const data = q.data!;
  const scopes = t.scopes.map((s) => s.scopeId);
  const now = Date.now();
  const email = (id: string) => data.memberships.find((m) => m.userId === id)?.user.email ?? id;
  const active = (id: string) => data.memberships.find((m) => m.userId === id)?.status === "active";
  const callers: Caller[] = [];
  for (const role of data.roles) {
    const granted = role.grants.find((g) => g.resourceServerId === server.id)?.scopeIds.filter((s) => scopes.includes(s)) ?? [];
    if (granted.length === 0) continue;
    for (const b of role.bindings) {
      if (b.expiresAt && Date.parse(b.expiresAt) <= now) continue;
      if (b.scopeType === "resource_server" && b.scopeId !== server.id) continue;
      const via = `${role.name} (${granted.join(" ")})`;
      if (b.subjectType === "user" && active(b.subjectId)) callers.push({ key: b.id, who: <Link to={toUser(b.subjectId)}>{email(b.subjectId)}</Link>, through: "direct binding", role: via, expiresAt: b.expiresAt ?? null });
      if (b.subjectType === "group") {
        const g = data.groups.find((x) => x.id === b.subjectId);
        for (const m of g?.members ?? []) if (active(m.userId)) callers.push({ key: `${b.id}-${m.userId}`, who: <Link to={toUser(m.userId)}>{email(m.userId)}</Link>, through: `group ${g!.name}`, role: via, expiresAt: b.expiresAt ?? null });
      }
      if (b.subjectType === "service_account") {
        const c = server.clients.find((x) => x.id === b.subjectId);
        callers.push({ key: b.id, who: <>client {c?.clientName ?? b.subjectId}</>, through: "service account", role: via, expiresAt: b.expiresAt ?? null });
      }
    }
  }
  return (
    <>
      <h1>Who can call {t.name}</h1>
      <p className="lede">
        On <Link to={toApplication(server.id, "matrix")}>{server.name}</Link>.{" "}
        {t.isPublic ? "It is public: any caller with a token for the server." : scopes.length ? `It needs one of: ${scopes.join(", ")}.` : "It has no scope: it is denied to everyone."}
      </p>
      {!t.isPublic && scopes.length > 0 && (
        <DataTable<Caller>
          caption={`People and clients who can call ${t.name} now`}
          rows={callers}
          rowKey={(c) => c.key}
          empty="Nobody: no binding of a role granting these scopes counts now."
          columns={[
            { header: "Who", rowHeader: true, cell: (c) => c.who },
            { header: "Through", cell: (c) => c.through },
            { header: "Role (scopes)", cell: (c) => c.role },
            { header: "Until", cell: (c) => <When at={c.expiresAt} never="no expiry" /> },
          ]}
        />
      )}
      <p className="hint">A suspended end user holds nothing whatever their bindings; clients also need the scope in their allowed scopes.</p>
    </>
  );
}
