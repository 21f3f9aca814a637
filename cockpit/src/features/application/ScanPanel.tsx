// Scan and rescan: Toolgate lists the server's tools as an MCP client (docs/lifecycle.md). While
// it runs the panel says so (aria-busy); a failure shows the server's message and its reason.
import { useState } from "react";
import { ApiError } from "../../api/errors";
import { useGraphMutation } from "../../app/data";
import { canWrite, useSignedIn } from "../../app/session";
import { When } from "../../components/DataTable";
import { ErrorAlert, Notice } from "../../components/ErrorAlert";
import { TextField } from "../../components/TextField";
import { RescanApplicationDocument } from "../../graphql/generated/graphql";
import { APPLICATION_KEY } from "./ApplicationPage";
import type { App } from "./types";

export function ScanPanel({ rs }: { rs: App }) {
  const s = useSignedIn();
  const scan = useGraphMutation(RescanApplicationDocument, [[APPLICATION_KEY, rs.id], ["applications"]]);
  const [token, setToken] = useState("");
  const reason = scan.error instanceof ApiError ? (scan.error.details.failure_reason as string | undefined) : undefined;
  const running = scan.isPending || rs.lastScanStatus === "in_progress";
  return (
    <section id="scan" aria-labelledby="scan-title" className="panel" aria-busy={running}>
      <h2 id="scan-title">Scan</h2>
      <dl className="facts">
        <dt>Last scan</dt>
        <dd>{rs.lastScanStatus ?? "never"}</dd>
        <dt>Scan generation</dt>
        <dd>{rs.scanGeneration}</dd>
        <dt>Launched</dt>
        <dd>
          <When at={rs.setupCompletedAt} never="not yet" />
        </dd>
      </dl>
      {rs.lastScanError && !scan.error && (
        <p className="alert alert-error">
          <strong>The last scan failed:</strong> {rs.lastScanError}
        </p>
      )}
      {canWrite(s) && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            scan.mutate({ id: rs.id, mcpToken: token || null });
          }}
        >
          <TextField
            label="Bearer token for the scan (optional)"
            name="mcpToken"
            type="password"
            autoComplete="off"
            value={token}
            onChange={(e) => setToken(e.target.value)}
            hint="Sent once to the server with the scan, never stored. Only for servers that already require a token."
          />
          <button type="submit" className="button-primary" disabled={running}>
            {rs.scanGeneration > 0 || rs.lastScanStatus ? "Rescan" : "Scan now"}
          </button>
          {running && <p aria-live="polite">Scanning {rs.resourceUrl}: listing its tools…</p>}
        </form>
      )}
      <ErrorAlert error={scan.error} title="The scan failed" />
      {reason && <p className="hint">Reason: {reason}</p>}
      {scan.isSuccess && <Notice>Scan finished: generation {scan.data.rescanResourceServer.scanGeneration}.</Notice>}
    </section>
  );
}
