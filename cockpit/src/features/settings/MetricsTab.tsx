// Settings → Metrics: whether this installation serves GET /metrics (TOOLGATE_METRICS_TOKEN is set),
// from GET /svc/settings/metrics (owners and admins). Never the token: only whether there is one.
import { useRest } from "../../app/data";
import { Badge } from "../../components/DataTable";
import { ErrorAlert, Loading } from "../../components/ErrorAlert";

interface MetricsStatus {
  enabled: boolean;
  path: string;
}

export function MetricsTab() {
  const status = useRest<MetricsStatus>(["settings", "metrics"], "/svc/settings/metrics");
  return (
    <section aria-labelledby="metrics-title" className="panel">
      <h2 id="metrics-title">Prometheus metrics</h2>
      {status.isPending ? (
        <Loading what="the metrics status" />
      ) : status.error ? (
        <ErrorAlert error={status.error} />
      ) : status.data.enabled ? (
        <>
          <p data-testid="metrics-status">
            <Badge tone="ok">On</Badge> <code>GET {status.data.path}</code> answers a scraper that sends the metrics token as a bearer token.
          </p>
          <p className="muted">The token is set by the operator (TOOLGATE_METRICS_TOKEN) and is never shown here. To rotate it, change the variable and restart.</p>
        </>
      ) : (
        <>
          <p data-testid="metrics-status">
            <Badge tone="neutral">Off</Badge> <code>GET {status.data.path}</code> is not served (404): TOOLGATE_METRICS_TOKEN is not set on this installation.
          </p>
          <p className="muted">To turn it on, set TOOLGATE_METRICS_TOKEN to a long random value and restart; the scraper sends it as a bearer token (docs/operations.md).</p>
        </>
      )}
    </section>
  );
}
