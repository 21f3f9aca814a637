import { useState } from "react";
import { Link } from "react-router";
import { useGraphMutation } from "../../app/data";
import { canWrite, useSignedIn } from "../../app/session";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { DataTable, When } from "../../components/DataTable";
import { ErrorAlert, Notice } from "../../components/ErrorAlert";
import { SelectField, TextField } from "../../components/TextField";
import { AddGroupMemberDocument, CreateGroupBindingDocument, CreateGroupDocument, DeleteBindingDocument, DeleteGroupDocument, RemoveGroupMemberDocument, type PeopleQuery } from "../../graphql/generated/graphql";
import { BindingForm } from "./BindingForm";
import { PEOPLE_KEY } from "./PeoplePage";
import { toUser } from "./routes";

type Group = PeopleQuery["groups"][number];
type Binding = Group["roleBindings"][number];

export const whereOf = (b: { scopeType?: string | null; scopeId?: string | null }, servers: { id: string; name: string }[]) =>
  b.scopeType === "resource_server" ? `only ${servers.find((s) => s.id === b.scopeId)?.name ?? b.scopeId}` : "whole workspace";

export function GroupsTab({ data }: { data: PeopleQuery }) {
  const s = useSignedIn();
  const writable = canWrite(s);
  const keys = [[PEOPLE_KEY]];
  const create = useGraphMutation(CreateGroupDocument, keys);
  const del = useGraphMutation(DeleteGroupDocument, keys);
  const [deleting, setDeleting] = useState<Group | null>(null);
  const [notice, setNotice] = useState("");
  return (
    <section aria-label="Groups">
      {writable && (
        <form
          className="inline-form"
          aria-label="Create a group"
          onSubmit={(e) => {
            e.preventDefault();
            const form = e.currentTarget;
            const f = new FormData(form);
            create.mutate({ input: { name: String(f.get("groupName")), description: String(f.get("groupDescription") ?? "") || null } }, { onSuccess: () => (form.reset(), setNotice("Group created.")) });
          }}
        >
          <TextField label="New group name" name="groupName" required />
          <TextField label="Description" name="groupDescription" />
          <button type="submit" disabled={create.isPending}>
            Create group
          </button>
        </form>
      )}
      <ErrorAlert error={create.error} />
      <Notice>{notice}</Notice>
      {data.groups.length === 0 && <p className="muted">No group yet.</p>}
      {data.groups.map((g) => (
        <GroupCard key={g.id} g={g} data={data} writable={writable} onDelete={() => setDeleting(g)} />
      ))}
      {deleting && (
        <ConfirmDialog
          title={`Delete group ${deleting.name}?`}
          confirmLabel={`Delete ${deleting.name}`}
          pending={del.isPending}
          error={del.error}
          onClose={() => setDeleting(null)}
          onConfirm={() => del.mutate({ id: deleting.id }, { onSuccess: () => (setDeleting(null), setNotice(`Group ${deleting.name} deleted.`)) })}
        >
          <p>
            Its {deleting.memberCount} member(s) lose what its {deleting.roleBindings.length} binding(s) gave them ({deleting.roleBindings.map((b) => b.role.name).join(", ") || "nothing"}); tokens
            narrow at their next introspection.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function GroupCard({ g, data, writable, onDelete }: { g: Group; data: PeopleQuery; writable: boolean; onDelete: () => void }) {
  const keys = [[PEOPLE_KEY]];
  const add = useGraphMutation(AddGroupMemberDocument, keys);
  const removeMember = useGraphMutation(RemoveGroupMemberDocument, keys);
  const bind = useGraphMutation(CreateGroupBindingDocument, keys);
  const unbind = useGraphMutation(DeleteBindingDocument, keys);
  const [confirm, setConfirm] = useState<{ kind: "member"; userId: string; email: string } | { kind: "binding"; b: Binding } | null>(null);
  const candidates = data.memberships.filter((m) => !g.members.some((x) => x.userId === m.userId));
  return (
    <article className="panel" aria-labelledby={`group-${g.id}`}>
      <div className="panel-head">
        <h2 id={`group-${g.id}`}>{g.name}</h2>
        {writable && (
          <button type="button" className="button-small button-danger" onClick={onDelete}>
            Delete group {g.name}
          </button>
        )}
      </div>
      {g.description && <p>{g.description}</p>}
      <DataTable
        caption={`Members of ${g.name}`}
        rows={g.members}
        rowKey={(m) => m.userId}
        empty="No member."
        columns={[{ header: "Member", rowHeader: true, cell: (m) => <Link to={toUser(m.userId)}>{m.user.email}</Link> }]}
        actions={(m) =>
          writable ? (
            <button type="button" className="button-small" onClick={() => setConfirm({ kind: "member", userId: m.userId, email: m.user.email })}>
              Remove {m.user.email} from {g.name}
            </button>
          ) : null
        }
      />
      {writable && candidates.length > 0 && (
        <form
          className="inline-form"
          aria-label={`Add a member to ${g.name}`}
          onSubmit={(e) => {
            e.preventDefault();
            add.mutate({ groupId: g.id, userId: String(new FormData(e.currentTarget).get(`member-${g.id}`)) });
          }}
        >
          <SelectField label={`Add to ${g.name}`} name={`member-${g.id}`}>
            {candidates.map((m) => (
              <option key={m.userId} value={m.userId}>
                {m.user.email}
              </option>
            ))}
          </SelectField>
          <button type="submit" disabled={add.isPending}>
            Add member
          </button>
        </form>
      )}
      <ErrorAlert error={add.error ?? removeMember.error ?? unbind.error} />
      <DataTable<Binding>
        caption={`Role bindings of ${g.name}`}
        rows={g.roleBindings}
        rowKey={(b) => b.id}
        empty="No binding: the group gives its members nothing yet."
        columns={[
          { header: "Role", rowHeader: true, cell: (b) => b.role.name },
          { header: "Applies to", cell: (b) => whereOf(b, data.resourceServers) },
          { header: "Expires", cell: (b) => <When at={b.expiresAt} never="never" /> },
        ]}
        actions={(b) =>
          writable ? (
            <button type="button" className="button-small" onClick={() => setConfirm({ kind: "binding", b })}>
              Remove binding {b.role.name}
            </button>
          ) : null
        }
      />
      {writable && <BindingForm idPrefix={`g-${g.id}`} roles={data.roles} servers={data.resourceServers} pending={bind.isPending} error={bind.error} onSubmit={(input) => bind.mutate({ groupId: g.id, input })} />}
      {confirm?.kind === "member" && (
        <ConfirmDialog
          title={`Remove ${confirm.email} from ${g.name}?`}
          confirmLabel="Remove member"
          pending={removeMember.isPending}
          error={removeMember.error}
          onClose={() => setConfirm(null)}
          onConfirm={() => removeMember.mutate({ groupId: g.id, userId: confirm.userId }, { onSuccess: () => setConfirm(null) })}
        >
          <p>
            {confirm.email} loses what {g.name} gives: {g.roleBindings.map((b) => b.role.name).join(", ") || "nothing today"}.
          </p>
        </ConfirmDialog>
      )}
      {confirm?.kind === "binding" && (
        <ConfirmDialog
          title={`Remove ${confirm.b.role.name} from ${g.name}?`}
          confirmLabel="Remove binding"
          pending={unbind.isPending}
          error={unbind.error}
          onClose={() => setConfirm(null)}
          onConfirm={() => unbind.mutate({ id: confirm.b.id }, { onSuccess: () => setConfirm(null) })}
        >
          <p>
            The {g.memberCount} member(s) of {g.name} lose {confirm.b.role.name} ({whereOf(confirm.b, data.resourceServers)}) unless another binding gives it.
          </p>
        </ConfirmDialog>
      )}
    </article>
  );
}
