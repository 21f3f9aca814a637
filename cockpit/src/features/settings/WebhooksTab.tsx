// Settings → Webhooks (/svc/exsvc, docs/audit-and-integrations.md): the workspace's endpoints with
// their status and circuit, add one (the signing secret shown once, with a copy button), send a
// test message, disable / enable, delete (each saying what it affects), and an endpoint's recent
// deliveries with their last status and error, a dead one redelivered on demand.
import { useState } from "react";
import { useSearchParams } from "react-router";
import { fieldErrorOf, formErrorOf } from "../../api/errors";
import { useRest, useRestMutation } from "../../app/data";
import { canWrite, useSignedIn } from "../../app/session";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { Badge, DataTable, When } from "../../components/DataTable";
import { Dialog } from "../../components/Dialog";
import { ErrorAlert, Loading, Notice } from "../../components/ErrorAlert";
import { SecretOnce } from "../../components/SecretOnce";
import { TextField } from "../../components/TextField";

export interface Webhook {
  id: string;
  url: string;
  description: string | null;
  event_types: string[];
  status: "active" | "disabled";
  consecutive_failures: number;
  circuit_open_until: string | null;
  created_at: string;
}
interface Delivery {
  id: string;
  message_id: string;
  event_type: string;
  status: "pending" | "sending" | "delivered" | "dead";
  attempts: number;
  next_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}
interface Page<T> {
  items: T[];
  next_cursor: string | null;
}
export const WEBHOOKS_KEY = "webhooks";
/** Deliveries shown per endpoint (the newest). */
const RECENT = 10;

type Action = { kind: "disable" | "enable" | "delete" | "deliveries"; webhook: Webhook };

export function WebhooksTab() {
  const s = useSignedIn();
  const writable = canWrite(s);
  const [params, setParams] = useSearchParams();
  const list = useRest<Page<Webhook>>([WEBHOOKS_KEY], "/svc/exsvc/webhooks?limit=100");
  const update = useRestMutation<Webhook, { id: string; status: "active" | "disabled" }>("PATCH", (v) => `/svc/exsvc/webhooks/${v.id}`, [[WEBHOOKS_KEY]], (v) => ({ status: v.status }));
  const remove = useRestMutation<void, string>("DELETE", (id) => `/svc/exsvc/webhooks/${id}`, [[WEBHOOKS_KEY]], () => undefined);
  const test = useRestMutation<Delivery, string>("POST", (id) => `/svc/exsvc/webhooks/${id}/test`, [[WEBHOOKS_KEY, "deliveries"]], () => ({}));
  const [action, setAction] = useState<Action | null>(null);
  const [notice, setNotice] = useState("");
  const creating = params.get("action") === "create-webhook";
  const closeCreate = () => {
    const next = new URLSearchParams(params);
    next.delete("action");
    setParams(next);
  };
  const done = (message: string) => () => {
    setAction(null);
    setNotice(message);
  };
  return (
    <section aria-labelledby="webhooks-title" className="panel">
      <div className="panel-head">
        <h2 id="webhooks-title">Webhooks</h2>
        {writable && (
          <button type="button" className="button-primary" onClick={() => setParams({ tab: "webhooks", action: "create-webhook" })}>
            Add a webhook
          </button>
        )}
      </div>
      <p className="muted">
        Toolgate posts the workspace&apos;s events to these endpoints, signed with the endpoint&apos;s secret (Standard Webhooks headers), retrying with backoff; after repeated failures it pauses the endpoint
        for a while (the circuit).
      </p>
      <Notice>{notice}</Notice>
      <ErrorAlert error={test.error} />
      {list.isPending ? (
        <Loading what="webhooks" />
      ) : list.error ? (
        <ErrorAlert error={list.error} />
      ) : (
        <DataTable<Webhook>
          caption="Webhook endpoints"
          rows={list.data.items}
          rowKey={(w) => w.id}
          empty="No webhook yet."
          columns={[
            { header: "Endpoint", rowHeader: true, cell: (w) => <><code>{w.url}</code>{w.description && <span className="hint">{w.description}</span>}</> },
            { header: "Event types", cell: (w) => w.event_types.map((t) => <code key={t} className="small">{t} </code>) },
            { header: "Status", cell: (w) => <WebhookStatus w={w} /> },
            { header: "Added", cell: (w) => <When at={w.created_at} /> },
          ]}
          actions={(w) => (
            <>
              <button type="button" className="button-small" onClick={() => setAction({ kind: "deliveries", webhook: w })}>
                Deliveries<span className="visually-hidden"> of {w.url}</span>
              </button>
              {writable && (
                <>
                  <button type="button" className="button-small" disabled={test.isPending} onClick={() => test.mutate(w.id, { onSuccess: () => setNotice(`Test message queued for ${w.url}.`) })}>
                    Send a test<span className="visually-hidden"> to {w.url}</span>
                  </button>
                  {w.status === "active" ? (
                    <button type="button" className="button-small button-danger" onClick={() => setAction({ kind: "disable", webhook: w })}>
                      Disable<span className="visually-hidden"> {w.url}</span>
                    </button>
                  ) : (
                    <button type="button" className="button-small" onClick={() => setAction({ kind: "enable", webhook: w })}>
                      Enable<span className="visually-hidden"> {w.url}</span>
                    </button>
                  )}
                  <button type="button" className="button-small button-danger" onClick={() => setAction({ kind: "delete", webhook: w })}>
                    Delete<span className="visually-hidden"> {w.url}</span>
                  </button>
                </>
              )}
            </>
          )}
        />
      )}
      {creating && <CreateWebhookDialog onClose={closeCreate} />}
      {action?.kind === "deliveries" && <DeliveriesDialog webhook={action.webhook} writable={writable} onClose={() => setAction(null)} />}
      {(action?.kind === "disable" || action?.kind === "enable") && (
        <ConfirmDialog
          title={action.kind === "disable" ? `Disable ${action.webhook.url}?` : `Enable ${action.webhook.url}?`}
          confirmLabel={action.kind === "disable" ? "Disable webhook" : "Enable webhook"}
          pending={update.isPending}
          error={update.error}
          onClose={() => setAction(null)}
          onConfirm={() =>
            update.mutate(
              { id: action.webhook.id, status: action.kind === "disable" ? "disabled" : "active" },
              { onSuccess: done(action.kind === "disable" ? `${action.webhook.url} is disabled.` : `${action.webhook.url} is enabled.`) },
            )
          }
        >
          {action.kind === "disable" ? (
            <p>
              Toolgate stops posting to it: events of {action.webhook.event_types.join(", ")} that happen while it is disabled are not queued for it, and its pending deliveries wait. The secret and the
              delivery history are kept; enabling it again resumes.
            </p>
          ) : (
            <p>Toolgate posts to it again (new events from now on, and its waiting deliveries); the failure count and the circuit are reset.</p>
          )}
        </ConfirmDialog>
      )}
      {action?.kind === "delete" && (
        <ConfirmDialog
          title={`Delete ${action.webhook.url}?`}
          confirmLabel="Delete webhook"
          pending={remove.isPending}
          error={remove.error}
          onClose={() => setAction(null)}
          onConfirm={() => remove.mutate(action.webhook.id, { onSuccess: done(`${action.webhook.url} is deleted.`) })}
        >
          <p>
            The endpoint stops receiving {action.webhook.event_types.join(", ")} at once; its pending deliveries are dropped unsent and its delivery history and signing secret are deleted. A new
            webhook for the same URL gets a new secret.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function WebhookStatus({ w }: { w: Webhook }) {
  const paused = w.circuit_open_until && new Date(w.circuit_open_until).getTime() > Date.now();
  return (
    <>
      <Badge tone={w.status === "active" ? (paused ? "warn" : "ok") : "neutral"}>{w.status === "active" ? (paused ? "paused" : "active") : "disabled"}</Badge>
      {paused && (
        <span className="hint">
          failing; retried after <When at={w.circuit_open_until} />
        </span>
      )}
      {w.consecutive_failures > 0 && <span className="hint">{w.consecutive_failures} failure(s) in a row</span>}
    </>
  );
}

function CreateWebhookDialog({ onClose }: { onClose: () => void }) {
  const types = useRest<{ items: { name: string; description: string }[] }>([WEBHOOKS_KEY, "event-types"], "/svc/exsvc/event-types");
  const create = useRestMutation<Webhook & { secret: string }, { url: string; event_types: string[]; description?: string }>("POST", () => "/svc/exsvc/webhooks", [[WEBHOOKS_KEY]]);
  const [url, setUrl] = useState("");
  const [eventTypes, setEventTypes] = useState("*");
  const [description, setDescription] = useState("");
  const fields = ["url", "event_types", "description"] as const;
  if (create.data) {
    return (
      <Dialog title="Webhook added" onClose={onClose}>
        <p>
          Toolgate now posts {create.data.event_types.join(", ")} to <code>{create.data.url}</code>. Verify each request&apos;s <code>webhook-signature</code> with this secret.
        </p>
        <SecretOnce label="Signing secret" secret={create.data.secret} />
        <div className="actions">
          <button type="button" className="button-primary" onClick={onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }
  return (
    <Dialog title="Add a webhook" onClose={onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ url: url.trim(), event_types: eventTypes.split(/[\s,]+/).filter(Boolean), ...(description.trim() ? { description: description.trim() } : {}) });
        }}
      >
        <TextField label="Endpoint URL" name="url" type="url" value={url} onChange={(e) => setUrl(e.target.value)} required placeholder="https://hooks.example.com/toolgate" error={fieldErrorOf(create.error, "url")} />
        <TextField
          label="Event types"
          name="event_types"
          value={eventTypes}
          onChange={(e) => setEventTypes(e.target.value)}
          required
          hint="Space-separated: a type (role_binding.created), a family (role_binding.*) or * for all."
          error={fieldErrorOf(create.error, "event_types")}
        />
        <TextField label="Description (optional)" name="description" value={description} onChange={(e) => setDescription(e.target.value)} error={fieldErrorOf(create.error, "description")} />
        <details>
          <summary>Event types Toolgate sends</summary>
          {types.error ? (
            <ErrorAlert error={types.error} />
          ) : (
            <dl className="facts">
              {(types.data?.items ?? []).map((t) => (
                <div key={t.name} className="contents">
                  <dt>
                    <code>{t.name}</code>
                  </dt>
                  <dd>{t.description}</dd>
                </div>
              ))}
            </dl>
          )}
        </details>
        <ErrorAlert error={formErrorOf(create.error, fields)} />
        <div className="actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button-primary" disabled={create.isPending}>
            Add webhook
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function DeliveriesDialog({ webhook, writable, onClose }: { webhook: Webhook; writable: boolean; onClose: () => void }) {
  const list = useRest<Page<Delivery>>([WEBHOOKS_KEY, "deliveries", webhook.id], `/svc/exsvc/webhooks/${webhook.id}/deliveries?limit=${RECENT}`);
  const redeliver = useRestMutation<Delivery, string>("POST", (id) => `/svc/exsvc/deliveries/${id}/redeliver`, [[WEBHOOKS_KEY, "deliveries", webhook.id]], () => ({}));
  const tone = (s: Delivery["status"]) => (s === "delivered" ? "ok" : s === "dead" ? "danger" : "warn");
  return (
    <Dialog title={`Recent deliveries to ${webhook.url}`} onClose={onClose} wide>
      <div className="actions">
        <button type="button" onClick={() => void list.refetch()} disabled={list.isFetching}>
          Refresh deliveries
        </button>
      </div>
      <ErrorAlert error={redeliver.error} />
      {list.isPending ? (
        <Loading what="deliveries" />
      ) : list.error ? (
        <ErrorAlert error={list.error} />
      ) : (
        <DataTable<Delivery>
          caption={`The ${RECENT} newest deliveries`}
          rows={list.data.items}
          rowKey={(d) => d.id}
          empty="Nothing sent yet."
          columns={[
            { header: "Event type", rowHeader: true, cell: (d) => <code>{d.event_type}</code> },
            { header: "Status", cell: (d) => <Badge tone={tone(d.status)}>{d.status}</Badge> },
            { header: "Attempts", cell: (d) => d.attempts },
            { header: "Last answer", cell: (d) => (d.last_status ? `HTTP ${d.last_status}` : d.last_error ? d.last_error : <span className="muted">none yet</span>) },
            { header: "Queued", cell: (d) => <When at={d.created_at} /> },
            { header: "Delivered", cell: (d) => <When at={d.delivered_at} never={d.next_attempt_at ? "next try soon" : "no"} /> },
          ]}
          actions={
            writable
              ? (d) =>
                  d.status === "delivered" || d.status === "dead" ? (
                    <button type="button" className="button-small" disabled={redeliver.isPending} onClick={() => redeliver.mutate(d.id)}>
                      Redeliver<span className="visually-hidden"> {d.message_id}</span>
                    </button>
                  ) : null
              : undefined
          }
        />
      )}
    </Dialog>
  );
}
