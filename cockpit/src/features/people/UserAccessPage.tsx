// One user's effective access drawn as paths: user → (group →) binding → role → scope → tool,
// for every binding that counts now (GET .../effective-access: expired ones are left out), and
// the user's own bindings (add one with an expiry, remove one).
import { useState } from "react";
import { Link, useParams } from "react-router";
import { useGraph, useGraphMutation } from "../../app/data";
import { canWrite, useSignedIn } from "../../app/session";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { Badge, DataTable, When } from "../../components/DataTable";
import { ErrorAlert, Loading } from "../../components/ErrorAlert";
import { usePageTitle } from "../../components/Page";
import { CreateUserBindingDocument, DeleteBindingDocument, UserAccessDocument, type UserAccessQuery } from "../../graphql/generated/graphql";
import { BindingForm } from "./BindingForm";
import { whereOf } from "./GroupsTab";

type Data = UserAccessQuery;
type Item = NonNullable<Data["user"]>["effectiveAccess"][number];

/** The scopes and tools one binding reaches: its role's grants, on the servers its scope allows. */
function reach(item: Item, data: Data) {
  const role = data.roles.find((r) => r.id === item.roleId);
  return (role?.grants ?? [])
    .filter((g) => item.scopeType !== "resource_server" || g.resourceServerId === item.scopeId)
    .map((g) => {
      const rs = data.resourceServers.find((r) => r.id === g.resourceServerId);
      return { server: rs?.name ?? g.resourceServerId, scopes: g.scopeIds.map((sc) => ({ scope: sc, tools: rs?.scopes.find((x) => x.scopeId === sc)?.tools.map((t) => t.name) ?? [] })) };
    });
}

export function UserAccessPage() {
  const { id = "" } = useParams();
  const s = useSignedIn();
  const q = useGraph(["people", "user", id], UserAccessDocument, { id });
  const bind = useGraphMutation(CreateUserBindingDocument, [["people"]]);
  const unbind = useGraphMutation(DeleteBindingDocument, [["people"]]);
  const [removing, setRemoving] = useState<{ id: string; role: string } | null>(null);
  const u = q.data?.user;
  usePageTitle(u ? `Access of ${u.email}` : "User");
  if (q.isPending) return <Loading what="the user" />;
  if (q.error) return <ErrorAlert error={q.error} />;
  if (!u) return <><h1>User not found</h1><p>No member of this workspace has this id.</p></>;
  const data = q.data!;
  const groupName = (gid: string) => u.groups.find((g) => g.id === gid)?.name ?? gid;
  return (
    <>
      <h1>Access of {u.email}</h1>
      <p className="lede">
        {u.username} · {u.membership.membershipType.replace("_", " ")} · membership <Badge tone={u.membership.status === "active" ? "ok" : "danger"}>{u.membership.status}</Badge> · end user{" "}
        <Badge tone={u.endUser.status === "active" ? "ok" : "danger"}>{u.endUser.status}</Badge> · <Link to="/people?tab=members">All people</Link>
      </p>
      {(u.membership.status !== "active" || u.endUser.status !== "active") && <p className="alert alert-error">While not active, {u.email} holds nothing: every token introspects inactive.</p>}
      <section aria-labelledby="paths-title" className="panel">
        <h2 id="paths-title">Effective access</h2>
        {u.effectiveAccess.length === 0 ? (
          <p>No binding counts now: {u.email} can call no scoped tool.</p>
        ) : (
          <ol className="paths">
            {u.effectiveAccess.map((item) => (
              <li key={item.bindingId} className="path" aria-label={`Through ${item.subject === "group" ? `group ${groupName(item.subjectId)}` : "a direct binding"}: role ${item.roleName}`}>
                <span className="step">{u.email}</span>
                {item.subject === "group" && <span className="step">group {groupName(item.subjectId)}</span>}
                <span className="step">
                  binding ({whereOf(item, data.resourceServers)}
                  {item.expiresAt && <>, until <When at={item.expiresAt} /></>})
                </span>
                <span className="step">role {item.roleName}</span>
                <ul className="reach">
                  {reach(item, data).map((r) =>
                    r.scopes.map((sc) => (
                      <li key={`${r.server}-${sc.scope}`}>
                        <span className="step">
                          {r.server}: scope <code>{sc.scope}</code>
                        </span>
                        <span className="step">{sc.tools.length ? sc.tools.map((t) => <code key={t}>{t} </code>) : <span className="muted">no tool mapped</span>}</span>
                      </li>
                    )),
                  )}
                </ul>
              </li>
            ))}
          </ol>
        )}
      </section>
      <section aria-labelledby="own-title" className="panel">
        <h2 id="own-title">Direct bindings</h2>
        <DataTable
          caption={`Bindings of ${u.email} (not through groups)`}
          rows={u.roleBindings}
          rowKey={(b) => b.id}
          empty="None: what this user holds comes through groups or the first-time grant."
          columns={[
            { header: "Role", rowHeader: true, cell: (b) => b.role.name },
            { header: "Applies to", cell: (b) => whereOf(b, data.resourceServers) },
            { header: "Expires", cell: (b) => <When at={b.expiresAt} never="never" /> },
            { header: "Source", cell: (b) => b.source },
          ]}
          actions={(b) =>
            canWrite(s) ? (
              <button type="button" className="button-small" onClick={() => setRemoving({ id: b.id, role: b.role.name })}>
                Remove binding {b.role.name}
              </button>
            ) : null
          }
        />
        {canWrite(s) && <BindingForm idPrefix="user" roles={data.roles} servers={data.resourceServers} pending={bind.isPending} error={bind.error} onSubmit={(input) => bind.mutate({ userId: u.id, input })} />}
      </section>
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.role} from ${u.email}?`}
          confirmLabel="Remove binding"
          pending={unbind.isPending}
          error={unbind.error}
          onClose={() => setRemoving(null)}
          onConfirm={() => unbind.mutate({ id: removing.id }, { onSuccess: () => setRemoving(null) })}
        >
          <p>{u.email} loses what {removing.role} gives, unless a group gives it too; their tokens narrow at the next introspection.</p>
        </ConfirmDialog>
      )}
    </>
  );
}
