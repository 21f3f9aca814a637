// Evidence exports of the application (docs/evidence-and-authzen.md): create one, list them (newest
// first), download each file, and verify an export here in the browser (evidence-verify.ts).
import { useState } from "react";
import { useRest, useRestMutation } from "../../app/data";
import { canWrite, useSignedIn } from "../../app/session";
import { Badge, When } from "../../components/DataTable";
import { ErrorAlert, Notice } from "../../components/ErrorAlert";
import { fetchFile, verifyExport, type ExportView, type Verification } from "./evidence-verify";
import type { App } from "./types";

const EVIDENCE_KEY = "evidence";

/** Saves one file: fetched with the admin token (a plain link would carry none), handed to the browser as a download. */
async function download(token: string, f: { name: string; path: string }, exportId: string) {
  const url = URL.createObjectURL(new Blob([await fetchFile(token, f.path)]));
  const a = document.createElement("a");
  a.href = url;
  a.download = `${exportId}-${f.name}`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

function ExportRow({ e, previous }: { e: ExportView; previous: ExportView | undefined }) {
  const s = useSignedIn();
  const [result, setResult] = useState<Verification | "running" | Error | null>(null);
  const [failed, setFailed] = useState<unknown>(null);
  const verify = () => {
    setResult("running");
    verifyExport(s.token, e, previous).then(setResult, (err: Error) => setResult(err));
  };
  return (
    <li className="evidence-export" aria-label={`Export ${e.seq}`}>
      <strong>Export {e.seq}</strong> <When at={e.created_at} /> · <code>{e.export_id}</code>
      <div className="row-actions">
        {e.files.map((f) => (
          <button key={f.name} type="button" className="button-small" onClick={() => download(s.token, f, e.export_id).catch(setFailed)}>
            Download {f.name}
          </button>
        ))}
        <button type="button" className="button-small" onClick={verify} disabled={result === "running"}>
          Verify export {e.seq}
        </button>
      </div>
      <ErrorAlert error={failed} title="Download failed" />
      {result === "running" && <p aria-live="polite">Verifying…</p>}
      {result instanceof Error && <ErrorAlert error={result} title="Verification could not run" />}
      {result && typeof result === "object" && !(result instanceof Error) && (
        <div role="status" aria-label={`Verification of export ${e.seq}`}>
          {result.ok ? <Badge tone="ok">Verified</Badge> : <Badge tone="danger">Does not verify</Badge>}
          <ul>
            {result.checks.map((c) => (
              <li key={c.check}>
                {c.ok ? "✓" : "✗"} {c.check}: {c.detail}
              </li>
            ))}
          </ul>
        </div>
      )}
    </li>
  );
}

export function EvidencePanel({ rs }: { rs: App }) {
  const s = useSignedIn();
  const list = useRest<{ items: ExportView[] }>([EVIDENCE_KEY, rs.id], `/svc/v1/applications/${rs.id}/evidence-exports?limit=10`);
  const create = useRestMutation<ExportView, void>("POST", () => `/svc/v1/applications/${rs.id}/evidence-exports`, [[EVIDENCE_KEY, rs.id]], () => ({}));
  const items = list.data?.items ?? [];
  return (
    <section id="evidence" aria-labelledby="evidence-title" className="panel">
      <h2 id="evidence-title">Evidence exports</h2>
      <p className="muted">
        Who had access to which tools, as signed JSON and CSV, each export chained to the one before. Verify one here, or offline with <code>toolgate evidence verify</code>.
      </p>
      {canWrite(s) && (
        <button type="button" disabled={create.isPending} onClick={() => create.mutate()}>
          Create an evidence export
        </button>
      )}
      <ErrorAlert error={create.error} />
      {create.data && <Notice>Export {create.data.seq} created.</Notice>}
      <ErrorAlert error={list.error} />
      {list.data && items.length === 0 && <p>No export yet.</p>}
      <ul className="evidence-list" aria-label="Evidence exports, newest first">
        {items.map((e, i) => (
          <ExportRow key={e.export_id} e={e} previous={items[i + 1]} />
        ))}
      </ul>
    </section>
  );
}
