// Tools and scopes as an editable grid (tool × scope): tick the scopes that let a caller use each
// tool, then save once (PUT tool-scope-map semantics: bulk, all-or-nothing). A tool can be made
// public (confirmed by typing its name), a changed definition approved after reading the diff,
// scopes added or deleted (saying which tools lose it), and tools added by hand.
import { useMemo, useState } from "react";
import { Link } from "react-router";
import { toCallers } from "../people/routes";
import { fieldErrorOf, formErrorOf } from "../../api/errors";
import { useGraphMutation } from "../../app/data";
import { canWrite, useSignedIn } from "../../app/session";
import { Badge } from "../../components/DataTable";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { Dialog } from "../../components/Dialog";
import { ErrorAlert, Notice } from "../../components/ErrorAlert";
import { TextField } from "../../components/TextField";
import { AddToolDocument, CreateScopeDocument, DeleteScopeDocument, SetToolPublicDocument, SetToolScopesDocument } from "../../graphql/generated/graphql";
import { APPLICATION_KEY } from "./ApplicationPage";
import { ApproveDefinitionDialog } from "./ApproveDefinitionDialog";
import type { App, AppTool } from "./types";

type Draft = Record<string, string[]>;
const draftOf = (tools: AppTool[]): Draft => Object.fromEntries(tools.map((t) => [t.id, t.scopes.map((s) => s.scopeId).sort()]));
const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

export function ScopeMatrixPanel({ rs }: { rs: App }) {
  const s = useSignedIn();
  const writable = canWrite(s);
  const keys = [[APPLICATION_KEY, rs.id], ["applications"]];
  const saved = useMemo(() => draftOf(rs.tools), [rs.tools]);
  const [draft, setDraft] = useState<Draft>(saved);
  const [dialog, setDialog] = useState<{ kind: "public" | "private" | "approve"; tool: AppTool } | { kind: "deleteScope"; scopeId: string } | { kind: "addScope" | "addTool" } | null>(null);
  const save = useGraphMutation(SetToolScopesDocument, keys);
  const setPublic = useGraphMutation(SetToolPublicDocument, keys);
  const deleteScope = useGraphMutation(DeleteScopeDocument, keys);
  const [notice, setNotice] = useState("");
  // A fresh read (after a save, a scan, another admin's change) replaces the draft's untouched rows.
  const [basis, setBasis] = useState(saved);
  if (basis !== saved) {
    setBasis(saved);
    setDraft((d) => Object.fromEntries(rs.tools.map((t) => [t.id, same(d[t.id] ?? [], basis[t.id] ?? []) ? saved[t.id]! : d[t.id]!])));
  }
  const changed = rs.tools.filter((t) => !same(draft[t.id] ?? [], saved[t.id] ?? []));
  const toggle = (tool: string, scope: string, on: boolean) =>
    setDraft((d) => ({ ...d, [tool]: on ? [...(d[tool] ?? []), scope].sort() : (d[tool] ?? []).filter((x) => x !== scope) }));
  const close = () => setDialog(null);

  return (
    <section id="matrix" aria-labelledby="matrix-title" className="panel">
      <div className="panel-head">
        <h2 id="matrix-title">Tools and scopes</h2>
        {writable && (
          <span className="actions">
            <button type="button" onClick={() => setDialog({ kind: "addScope" })}>
              Add a scope
            </button>
            <button type="button" onClick={() => setDialog({ kind: "addTool" })}>
              Add a tool by hand
            </button>
          </span>
        )}
      </div>
      <p className="hint">A caller may use a tool when their token holds one of its ticked scopes. A public tool needs none; a tool with nothing ticked is denied.</p>
      <div className="table-wrap">
        <table className="matrix">
          <caption>Scope matrix of {rs.name}</caption>
          <thead>
            <tr>
              <th scope="col">Tool</th>
              {rs.scopes.map((sc) => (
                <th scope="col" key={sc.id}>
                  <span className="scope-head">
                    <code>{sc.scopeId}</code>
                    {writable && (
                      <button type="button" className="button-quiet" aria-label={`Delete scope ${sc.scopeId}`} onClick={() => setDialog({ kind: "deleteScope", scopeId: sc.scopeId })}>
                        ×
                      </button>
                    )}
                  </span>
                </th>
              ))}
              <th scope="col">Public</th>
              <th scope="col">Definition</th>
            </tr>
          </thead>
          <tbody>
            {rs.tools.length === 0 && (
              <tr>
                <td colSpan={rs.scopes.length + 3} className="empty">
                  No tools yet: scan the server, or add a tool by hand.
                </td>
              </tr>
            )}
            {rs.tools.map((t) => {
              const changedDefinition = t.liveDefinitionHash !== null && t.definitionHash !== null && t.liveDefinitionHash !== t.definitionHash;
              return (
                <tr key={t.id}>
                  <th scope="row">
                    <code>{t.name}</code> <Link to={toCallers(rs.id, t.id)} className="small">who can call it</Link> {t.stale && <Badge tone="warn">Stale</Badge>} {t.source === "manual" && <Badge>Manual</Badge>}
                    {!t.isPublic && (draft[t.id] ?? []).length === 0 && <Badge tone="danger">Denied</Badge>}
                  </th>
                  {rs.scopes.map((sc) => (
                    <td key={sc.id} className="cell-check">
                      <input
                        type="checkbox"
                        aria-label={`${sc.scopeId} for ${t.name}`}
                        checked={(draft[t.id] ?? []).includes(sc.scopeId)}
                        disabled={!writable || t.isPublic}
                        onChange={(e) => toggle(t.id, sc.scopeId, e.target.checked)}
                      />
                    </td>
                  ))}
                  <td>
                    {t.isPublic ? <Badge tone="info">Public</Badge> : <span className="muted">No</span>}{" "}
                    {writable && (
                      <button type="button" className="button-small" onClick={() => setDialog({ kind: t.isPublic ? "private" : "public", tool: t })}>
                        {t.isPublic ? `Make ${t.name} private` : `Make ${t.name} public`}
                      </button>
                    )}
                  </td>
                  <td>
                    {changedDefinition ? (
                      <>
                        <Badge tone="warn">Changed</Badge>{" "}
                        {writable && (
                          <button type="button" className="button-small" onClick={() => setDialog({ kind: "approve", tool: t })}>
                            Review {t.name}
                          </button>
                        )}
                      </>
                    ) : (
                      <span className="muted">{t.definitionHash ? "Pinned" : "Not reported"}</span>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {writable && rs.tools.length > 0 && (
        <div className="actions">
          <span aria-live="polite" className="muted">
            {changed.length === 0 ? "No unsaved changes." : `${changed.length} tool${changed.length === 1 ? "" : "s"} changed.`}
          </span>
          <button type="button" onClick={() => setDraft(saved)} disabled={changed.length === 0}>
            Discard changes
          </button>
          <button
            type="button"
            className="button-primary"
            disabled={changed.length === 0 || save.isPending}
            onClick={() => save.mutate({ id: rs.id, mappings: changed.map((t) => ({ toolId: t.id, scopeIds: draft[t.id] ?? [] })) }, { onSuccess: () => setNotice("Mapping saved.") })}
          >
            Save mapping
          </button>
        </div>
      )}
      <ErrorAlert error={save.error} title="The mapping was not saved" />
      <Notice>{notice}</Notice>

      {dialog?.kind === "public" && (
        <ConfirmDialog
          title={`Make ${dialog.tool.name} public?`}
          confirmLabel={`Make ${dialog.tool.name} public`}
          typeToConfirm={dialog.tool.name}
          pending={setPublic.isPending}
          error={setPublic.error}
          onClose={close}
          onConfirm={() => setPublic.mutate({ id: rs.id, toolId: dialog.tool.id, isPublic: true, confirm: dialog.tool.name }, { onSuccess: () => (close(), setNotice(`${dialog.tool.name} is public.`)) })}
        >
          <p>
            Every caller with a token for <strong>{rs.name}</strong> will be able to call <code>{dialog.tool.name}</code>, whatever scopes they hold. Its scope mapping stops mattering.
          </p>
        </ConfirmDialog>
      )}
      {dialog?.kind === "private" && (
        <ConfirmDialog
          title={`Make ${dialog.tool.name} private?`}
          confirmLabel={`Make ${dialog.tool.name} private`}
          pending={setPublic.isPending}
          error={setPublic.error}
          onClose={close}
          onConfirm={() => setPublic.mutate({ id: rs.id, toolId: dialog.tool.id, isPublic: false }, { onSuccess: () => (close(), setNotice(`${dialog.tool.name} is private.`)) })}
        >
          <p>
            Callers then need one of the scopes ticked for <code>{dialog.tool.name}</code>; {(draft[dialog.tool.id] ?? []).length === 0 ? "none is ticked, so it will be denied to everyone." : `it is mapped to ${(saved[dialog.tool.id] ?? []).join(", ")}.`}
          </p>
        </ConfirmDialog>
      )}
      {dialog?.kind === "deleteScope" && (
        <ConfirmDialog
          title={`Delete scope ${dialog.scopeId}?`}
          confirmLabel={`Delete ${dialog.scopeId}`}
          pending={deleteScope.isPending}
          error={deleteScope.error}
          onClose={close}
          onConfirm={() => deleteScope.mutate({ id: rs.id, scopeId: dialog.scopeId }, { onSuccess: () => (close(), setNotice(`Scope ${dialog.scopeId} deleted.`)) })}
        >
          <DeleteScopeEffects rs={rs} scopeId={dialog.scopeId} />
        </ConfirmDialog>
      )}
      {dialog?.kind === "approve" && <ApproveDefinitionDialog rs={rs} tool={dialog.tool} onClose={close} />}
      {dialog?.kind === "addScope" && <AddScopeDialog rs={rs} onClose={close} />}
      {dialog?.kind === "addTool" && <AddToolDialog rs={rs} onClose={close} />}
    </section>
  );
}

function DeleteScopeEffects({ rs, scopeId }: { rs: App; scopeId: string }) {
  const tools = rs.tools.filter((t) => t.scopes.some((s) => s.scopeId === scopeId));
  const orphaned = tools.filter((t) => !t.isPublic && t.scopes.length === 1);
  return (
    <>
      <p>
        {tools.length === 0 ? "No tool is mapped to it." : <>Mapped to {tools.map((t) => t.name).join(", ")}.</>} Roles and clients that grant it lose it; tokens already issued keep it until they
        expire, new tokens do not carry it.
      </p>
      {orphaned.length > 0 && (
        <p>
          <strong>{orphaned.map((t) => t.name).join(", ")}</strong> {orphaned.length === 1 ? "has" : "have"} no other scope and will be denied to everyone.
        </p>
      )}
      {rs.state === "ready" && <p>The server is launched: this records a scope_deleted drift event.</p>}
    </>
  );
}

function AddScopeDialog({ rs, onClose }: { rs: App; onClose: () => void }) {
  const create = useGraphMutation(CreateScopeDocument, [[APPLICATION_KEY, rs.id], ["applications"]]);
  const fields = ["scopeId", "name", "description"];
  return (
    <Dialog title={`Add a scope to ${rs.name}`} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          create.mutate({ id: rs.id, input: { scopeId: String(f.get("scopeId")), name: String(f.get("name")), description: String(f.get("description") ?? "") || null } }, { onSuccess: onClose });
        }}
      >
        <TextField label="Scope id" name="scopeId" required placeholder="notes:read" hint="The string tokens carry." error={fieldErrorOf(create.error, "scopeId")} />
        <TextField label="Name" name="name" required placeholder="Read notes" error={fieldErrorOf(create.error, "name")} />
        <TextField label="Description" name="description" error={fieldErrorOf(create.error, "description")} />
        <ErrorAlert error={formErrorOf(create.error, fields)} />
        <div className="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button-primary" disabled={create.isPending}>
            Add scope
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function AddToolDialog({ rs, onClose }: { rs: App; onClose: () => void }) {
  const add = useGraphMutation(AddToolDocument, [[APPLICATION_KEY, rs.id], ["applications"]]);
  const fields = ["name", "title", "description", "inputSchemaJson"];
  return (
    <Dialog title={`Add a tool to ${rs.name}`} onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          const opt = (k: string) => String(f.get(k) ?? "") || null;
          add.mutate({ id: rs.id, input: { name: String(f.get("name")), title: opt("title"), description: opt("description"), inputSchemaJson: opt("inputSchemaJson") } }, { onSuccess: onClose });
        }}
      >
        <p className="hint">For a tool the scan cannot see. Its name must be exactly the one the server publishes.</p>
        <TextField label="Tool name" name="name" required error={fieldErrorOf(add.error, "name")} />
        <TextField label="Title" name="title" error={fieldErrorOf(add.error, "title")} />
        <TextField label="Description" name="description" error={fieldErrorOf(add.error, "description")} />
        <TextField label="Input schema (JSON)" name="inputSchemaJson" error={fieldErrorOf(add.error, "inputSchemaJson")} />
        <ErrorAlert error={formErrorOf(add.error, fields)} />
        <div className="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button-primary" disabled={add.isPending}>
            Add tool
          </button>
        </div>
      </form>
    </Dialog>
  );
}
