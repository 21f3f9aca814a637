import { useState } from "react";
import { fieldErrorOf, formErrorOf } from "../../api/errors";
import { useGraphMutation } from "../../app/data";
import { canWrite, useSignedIn } from "../../app/session";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { DataTable } from "../../components/DataTable";
import { ErrorAlert, Notice } from "../../components/ErrorAlert";
import { CheckboxField, TextField } from "../../components/TextField";
import { CreateRoleDocument, DeleteRoleDocument, type PeopleQuery } from "../../graphql/generated/graphql";
import { PEOPLE_KEY } from "./PeoplePage";

type Role = PeopleQuery["roles"][number];

export function RolesTab({ data }: { data: PeopleQuery }) {
  const s = useSignedIn();
  const writable = canWrite(s);
  const create = useGraphMutation(CreateRoleDocument, [[PEOPLE_KEY], ["application"]]);
  const del = useGraphMutation(DeleteRoleDocument, [[PEOPLE_KEY], ["application"]]);
  const [deleting, setDeleting] = useState<Role | null>(null);
  const [notice, setNotice] = useState("");
  const nameOf = (id: string) => data.resourceServers.find((r) => r.id === id)?.name ?? id;
  return (
    <section aria-label="Roles">
      <Notice>{notice}</Notice>
      <DataTable<Role>
        caption="Roles"
        rows={data.roles}
        rowKey={(r) => r.id}
        empty="No role yet. A role names the scopes it grants on each application."
        columns={[
          { header: "Role", rowHeader: true, cell: (r) => r.name },
          { header: "Grants", cell: (r) => (r.grants.length ? r.grants.map((g) => `${nameOf(g.resourceServerId)}: ${g.scopeIds.join(" ")}`).join("; ") : <span className="muted">nothing</span>) },
          { header: "Description", cell: (r) => r.description ?? "" },
        ]}
        actions={(r) =>
          writable ? (
            <button type="button" className="button-small button-danger" onClick={() => setDeleting(r)}>
              Delete role {r.name}
            </button>
          ) : null
        }
      />
      {writable && (
        <form
          className="panel"
          aria-label="Create a role"
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget;
            const f = new FormData(form);
            const grants = data.resourceServers
              .map((rs) => ({ resourceServerId: rs.id, scopeIds: f.getAll(`grant-${rs.id}`).map(String) }))
              .filter((g) => g.scopeIds.length > 0);
            create.mutate({ input: { name: String(f.get("roleName")), description: String(f.get("roleDescription") ?? "") || null, grants } }, { onSuccess: () => (form.reset(), setNotice("Role created.")) });
          }}
        >
          <h2>Create a role</h2>
          <TextField label="Role name" name="roleName" required error={fieldErrorOf(create.error, "name")} />
          <TextField label="Role description" name="roleDescription" />
          {data.resourceServers.map((rs) => (
            <fieldset key={rs.id}>
              <legend>Scopes on {rs.name}</legend>
              {rs.scopes.length === 0 && <p className="hint">No scope defined yet.</p>}
              {rs.scopes.map((sc) => (
                <CheckboxField key={sc.scopeId} id={`grant-${rs.id}-${sc.scopeId}`} name={`grant-${rs.id}`} value={sc.scopeId} label={sc.scopeId} />
              ))}
            </fieldset>
          ))}
          <ErrorAlert error={formErrorOf(create.error, ["name"])} />
          <button type="submit" className="button-primary" disabled={create.isPending}>
            Create role
          </button>
        </form>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete role ${deleting.name}?`}
          confirmLabel={`Delete ${deleting.name}`}
          pending={del.isPending}
          error={del.error}
          onClose={() => setDeleting(null)}
          onConfirm={() => del.mutate({ id: deleting.id }, { onSuccess: () => (setDeleting(null), setNotice(`Role ${deleting.name} deleted.`)) })}
        >
          <p>A role still bound to someone, or used as an application's default role, cannot be deleted: the server says which first.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
