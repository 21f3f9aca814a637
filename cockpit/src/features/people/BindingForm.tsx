// A role binding for a group or a user: the role, where it applies (the whole workspace or one
// application) and an optional expiry (the binding stops counting at that moment).
import { fieldErrorOf, formErrorOf } from "../../api/errors";
import type { ApiError } from "../../api/errors";
import { ErrorAlert } from "../../components/ErrorAlert";
import { SelectField, TextField } from "../../components/TextField";
import type { CreateRoleBindingInput } from "../../graphql/generated/graphql";

export function BindingForm(p: {
  idPrefix: string;
  roles: { id: string; name: string }[];
  servers: { id: string; name: string }[];
  pending: boolean;
  error: ApiError | null;
  onSubmit: (input: CreateRoleBindingInput) => void;
}) {
  const id = (n: string) => `${p.idPrefix}-${n}`;
  return (
    <form
      className="inline-form"
      aria-label="Add a role binding"
      onSubmit={(e) => {
        e.preventDefault();
        const f = new FormData(e.currentTarget);
        const where = String(f.get(id("scope")));
        const expires = String(f.get(id("expires")) ?? "");
        p.onSubmit({
          roleId: String(f.get(id("role"))),
          scopeType: where ? "resource_server" : null,
          scopeId: where || null,
          expiresAt: expires ? new Date(expires).toISOString() : null,
        });
      }}
    >
      <SelectField label="Role" name={id("role")} required>
        {p.roles.map((r) => (
          <option key={r.id} value={r.id}>
            {r.name}
          </option>
        ))}
      </SelectField>
      <SelectField label="Applies to" name={id("scope")}>
        <option value="">The whole workspace</option>
        {p.servers.map((s) => (
          <option key={s.id} value={s.id}>
            Only {s.name}
          </option>
        ))}
      </SelectField>
      <TextField label="Expires (optional)" name={id("expires")} type="datetime-local" error={fieldErrorOf(p.error, "expiresAt")} />
      <button type="submit" disabled={p.pending || p.roles.length === 0}>
        Add binding
      </button>
      <ErrorAlert error={formErrorOf(p.error, ["expiresAt"])} />
    </form>
  );
}
