import { useState } from "react";
import { Link } from "react-router";
import { useGraphMutation } from "../../app/data";
import { canWrite, useSignedIn } from "../../app/session";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { Badge, DataTable, When } from "../../components/DataTable";
import { ErrorAlert, Notice } from "../../components/ErrorAlert";
import { TextField } from "../../components/TextField";
import { ReactivateEndUserDocument, SuspendEndUserDocument, type PeopleQuery } from "../../graphql/generated/graphql";
import { PEOPLE_KEY } from "./PeoplePage";
import { toUser } from "./routes";

type EndUser = PeopleQuery["endUsers"][number];

export function EndUsersTab({ data }: { data: PeopleQuery }) {
  const s = useSignedIn();
  const suspend = useGraphMutation(SuspendEndUserDocument, [[PEOPLE_KEY]]);
  const reactivate = useGraphMutation(ReactivateEndUserDocument, [[PEOPLE_KEY]]);
  const [target, setTarget] = useState<{ user: EndUser; action: "suspend" | "reactivate" } | null>(null);
  const [reason, setReason] = useState("");
  const [notice, setNotice] = useState("");
  const m = target?.action === "suspend" ? suspend : reactivate;
  return (
    <section aria-label="End users">
      <Notice>{notice}</Notice>
      <DataTable<EndUser>
        caption="End users"
        rows={data.endUsers}
        rowKey={(u) => u.userId}
        empty="No end user."
        columns={[
          { header: "Email", rowHeader: true, cell: (u) => <Link to={toUser(u.userId)}>{u.userEmail}</Link> },
          { header: "Username", cell: (u) => u.userUsername },
          { header: "Status", cell: (u) => <Badge tone={u.status === "active" ? "ok" : "danger"}>{u.status}</Badge> },
          { header: "Suspended", cell: (u) => (u.status === "suspended" ? <><When at={u.suspendedAt} />{u.suspendedReason && ` — ${u.suspendedReason}`}</> : <span className="muted">—</span>) },
          { header: "Plan", cell: (u) => u.planTier ?? <span className="muted">none</span> },
        ]}
        actions={(u) =>
          canWrite(s) && u.userId !== s.userId ? (
            <button type="button" className={u.status === "active" ? "button-small button-danger" : "button-small"} onClick={() => (setReason(""), setTarget({ user: u, action: u.status === "active" ? "suspend" : "reactivate" }))}>
              {u.status === "active" ? `Suspend ${u.userEmail}` : `Reactivate ${u.userEmail}`}
            </button>
          ) : null
        }
      />
      {target && (
        <ConfirmDialog
          title={`${target.action === "suspend" ? "Suspend" : "Reactivate"} ${target.user.userEmail}?`}
          confirmLabel={target.action === "suspend" ? "Suspend" : "Reactivate"}
          pending={m.isPending}
          error={m.error}
          onClose={() => setTarget(null)}
          onConfirm={() => {
            const done = { onSuccess: () => (setTarget(null), setNotice(`${target.user.userEmail} ${target.action === "suspend" ? "suspended" : "reactivated"}.`)) };
            if (target.action === "suspend") suspend.mutate({ userId: target.user.userId, reason: reason || null }, done);
            else reactivate.mutate({ userId: target.user.userId }, done);
          }}
        >
          {target.action === "suspend" ? (
            <>
              <p>Every token of {target.user.userEmail} introspects inactive at once, their browser sessions end, and they cannot sign in until reactivated. Their bindings are kept.</p>
              <TextField label="Reason (optional)" name="reason" value={reason} onChange={(e) => setReason(e.target.value)} />
            </>
          ) : (
            <p>{target.user.userEmail} can sign in again and their bindings count again.</p>
          )}
        </ConfirmDialog>
      )}
      <ErrorAlert error={null} />
    </section>
  );
}
