// The runtime: what the server's SDK pushed (its manifest) and whether Toolgate is ready to serve
// it (POST .../test-login: a token for its audience minted and verified, the compiled policy),
// the endpoints it is configured with, and rotating its introspection secret.
import { useState } from "react";
import { useGraphMutation, useRestMutation } from "../../app/data";
import { canWrite, useSignedIn } from "../../app/session";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { Badge, When } from "../../components/DataTable";
import { Dialog } from "../../components/Dialog";
import { ErrorAlert } from "../../components/ErrorAlert";
import { SecretOnce } from "../../components/SecretOnce";
import { RotateIntrospectionSecretDocument } from "../../graphql/generated/graphql";
import { APPLICATION_KEY } from "./ApplicationPage";
import type { App } from "./types";

interface Readiness {
  ok: boolean;
  oauth: { ready: boolean; detail: string };
  sdk_policy: { state: string; policy_complete: boolean; generation: number; mapped_tools: number; undismissed_drift_events: number; reason?: string };
}

export function RuntimePanel({ rs }: { rs: App }) {
  const s = useSignedIn();
  const m = rs.manifestStatus;
  const check = useRestMutation<Readiness, void>("POST", () => `/svc/resource-servers/${rs.id}/test-login`, [], () => undefined);
  const rotate = useGraphMutation(RotateIntrospectionSecretDocument, [[APPLICATION_KEY, rs.id]]);
  const [confirm, setConfirm] = useState(false);
  return (
    <section id="runtime" aria-labelledby="runtime-title" className="panel">
      <h2 id="runtime-title">Runtime</h2>
      <dl className="facts">
        <dt>Manifest</dt>
        <dd>
          {m.pushed ? (
            <>
              pushed <When at={m.pushedAt} />, {m.toolCount} tools {m.valid === false ? <Badge tone="danger">Invalid</Badge> : <Badge tone="ok">Valid</Badge>}
            </>
          ) : (
            "not pushed yet (the SDK pushes it when the server starts)"
          )}
        </dd>
        {m.unmappedTools.length > 0 && (
          <>
            <dt>In the manifest, not mapped</dt>
            <dd>{m.unmappedTools.join(", ")}</dd>
          </>
        )}
        {m.missingFromManifest.length > 0 && (
          <>
            <dt>Mapped, missing from the manifest</dt>
            <dd>{m.missingFromManifest.join(", ")}</dd>
          </>
        )}
        {[...m.validationErrors, ...m.warnings].map((w) => (
          <dd key={w}>{w}</dd>
        ))}
        <dt>Issuer</dt>
        <dd>
          <code>{rs.endpoints.issuerUrl}</code>
        </dd>
        <dt>Policy (sdk-policy)</dt>
        <dd>
          <code>{rs.endpoints.scopeMatrixUrl}</code>
        </dd>
        <dt>Introspection</dt>
        <dd>
          <code>{rs.endpoints.introspectionEndpoint}</code>
        </dd>
      </dl>
      {canWrite(s) && (
        <div className="actions">
          <button type="button" onClick={() => check.mutate()} disabled={check.isPending}>
            Check runtime readiness
          </button>
          <button type="button" className="button-danger" onClick={() => setConfirm(true)}>
            Rotate introspection secret
          </button>
        </div>
      )}
      {check.data && (
        <div role="status" className={check.data.ok ? "alert alert-ok" : "alert alert-error"}>
          <p>
            <strong>OAuth:</strong> {check.data.oauth.ready ? "ready" : "not ready"} — {check.data.oauth.detail}
          </p>
          <p>
            <strong>Policy:</strong> {check.data.sdk_policy.policy_complete ? `complete, generation ${check.data.sdk_policy.generation}, ${check.data.sdk_policy.mapped_tools} tools` : (check.data.sdk_policy.reason ?? "incomplete")}
          </p>
        </div>
      )}
      <ErrorAlert error={check.error} />
      {confirm && !rotate.data && (
        <ConfirmDialog
          title="Rotate the introspection secret?"
          confirmLabel="Rotate now"
          pending={rotate.isPending}
          error={rotate.error}
          onClose={() => setConfirm(false)}
          onConfirm={() => rotate.mutate({ id: rs.id })}
        >
          <p>
            The current secret stops working at once: every runtime of <strong>{rs.name}</strong> fails introspection and policy fetches (its callers get 503) until restarted with the new secret.
          </p>
        </ConfirmDialog>
      )}
      {rotate.data && (
        <Dialog title="New introspection secret" onClose={() => (rotate.reset(), setConfirm(false))}>
          <SecretOnce label="Introspection secret" secret={rotate.data.rotateIntrospectionSecret.introspectionSecret} />
        </Dialog>
      )}
    </section>
  );
}
