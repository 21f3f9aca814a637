import { useState } from "react";
import { Link } from "react-router";
import { fieldErrorOf, formErrorOf } from "../../api/errors";
import { useGraphMutation, useRestMutation } from "../../app/data";
import { canWrite, useSignedIn } from "../../app/session";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { Badge, DataTable } from "../../components/DataTable";
import { Dialog } from "../../components/Dialog";
import { ErrorAlert, Notice } from "../../components/ErrorAlert";
import { SelectField, TextField } from "../../components/TextField";
import { RemoveMembershipDocument, UpdateMembershipDocument, type MembershipType, type PeopleQuery } from "../../graphql/generated/graphql";
import { PEOPLE_KEY } from "./PeoplePage";
import { toUser } from "./routes";

type Member = PeopleQuery["memberships"][number];
const TYPES: MembershipType[] = ["owner", "admin", "member", "contractor", "service_operator", "readonly_auditor"];

export function MembersTab({ data }: { data: PeopleQuery }) {
  const s = useSignedIn();
  const writable = canWrite(s);
  const update = useGraphMutation(UpdateMembershipDocument, [[PEOPLE_KEY]]);
  const remove = useGraphMutation(RemoveMembershipDocument, [[PEOPLE_KEY]]);
  const [removing, setRemoving] = useState<Member | null>(null);
  const [adding, setAdding] = useState(false);
  const [notice, setNotice] = useState("");
  return (
    <section aria-label="Members">
      {writable && (
        <button type="button" className="button-primary" onClick={() => setAdding(true)}>
          Add a user
        </button>
      )}
      <Notice>{notice}</Notice>
      <ErrorAlert error={update.error} />
      <DataTable<Member>
        caption="Members of the workspace"
        rows={data.memberships}
        rowKey={(m) => m.id}
        empty="No member."
        columns={[
          { header: "Email", rowHeader: true, cell: (m) => <Link to={toUser(m.userId)}>{m.user.email}</Link> },
          {
            header: "Role",
            cell: (m) =>
              writable && m.userId !== s.userId ? (
                <select aria-label={`Role of ${m.user.email}`} value={m.membershipType} onChange={(e) => update.mutate({ userId: m.userId, input: { membershipType: e.target.value as MembershipType } })}>
                  {TYPES.map((t) => (
                    <option key={t} value={t}>
                      {t.replace("_", " ")}
                    </option>
                  ))}
                </select>
              ) : (
                m.membershipType.replace("_", " ")
              ),
          },
          { header: "Status", cell: (m) => <Badge tone={m.status === "active" ? "ok" : m.status === "suspended" ? "danger" : "neutral"}>{m.status}</Badge> },
          { header: "Source", cell: (m) => m.source },
        ]}
        actions={(m) =>
          writable && m.userId !== s.userId ? (
            <button type="button" className="button-small button-danger" onClick={() => setRemoving(m)}>
              Remove {m.user.email}
            </button>
          ) : null
        }
      />
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.user.email}?`}
          confirmLabel="Remove from workspace"
          pending={remove.isPending}
          error={remove.error}
          onClose={() => setRemoving(null)}
          onConfirm={() => remove.mutate({ userId: removing.userId }, { onSuccess: () => (setRemoving(null), setNotice(`${removing.user.email} removed.`)) })}
        >
          <p>
            {removing.user.email} leaves the workspace: their group memberships, their own role bindings and their end-user state here are deleted, their browser sessions end, and their tokens
            introspect inactive.
          </p>
        </ConfirmDialog>
      )}
      {adding && <AddUserDialog onClose={() => setAdding(false)} onDone={(email) => (setAdding(false), setNotice(`${email} added.`))} />}
    </section>
  );
}

interface NewUser {
  email: string;
  username: string;
  password?: string;
}

function AddUserDialog({ onClose, onDone }: { onClose: () => void; onDone: (email: string) => void }) {
  const s = useSignedIn();
  const create = useRestMutation<{ id: string }, NewUser>("POST", () => `/uflow/v2/tenants/${s.workspaceId}/users`, [[PEOPLE_KEY]]);
  const fields = ["email", "username", "password"];
  return (
    <Dialog title="Add a user" onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          const password = String(f.get("password") ?? "");
          const body: NewUser = { email: String(f.get("email")), username: String(f.get("username")), ...(password ? { password } : {}) };
          create.mutate(body, { onSuccess: () => onDone(body.email) });
        }}
      >
        <p className="hint">The user becomes a member of this workspace. Without a password they cannot sign in with one.</p>
        <TextField label="Email" name="email" type="email" required error={fieldErrorOf(create.error, "email")} />
        <TextField label="Username" name="username" required error={fieldErrorOf(create.error, "username")} />
        <TextField label="Password (optional)" name="password" type="password" autoComplete="new-password" error={fieldErrorOf(create.error, "password")} />
        <ErrorAlert error={formErrorOf(create.error, fields)} />
        <div className="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button-primary" disabled={create.isPending}>
            Add user
          </button>
        </div>
      </form>
    </Dialog>
  );
}
