// One application: what to do next (the setup checklist), scan, the tool × scope matrix, access
// policy and activation, drift events, the runtime's status and evidence exports, on one page in that order.
import { useParams } from "react-router";
import { useGraph } from "../../app/data";
import { Badge } from "../../components/DataTable";
import { ErrorAlert, Loading } from "../../components/ErrorAlert";
import { usePageTitle } from "../../components/Page";
import { ApplicationDocument } from "../../graphql/generated/graphql";
import { badgesOf, STATE_LABEL, stateTone } from "../applications/badges";
import { ActivationPanel } from "./ActivationPanel";
import { DriftPanel } from "./DriftPanel";
import { EvidencePanel } from "./EvidencePanel";
import { RuntimePanel } from "./RuntimePanel";
import { ScanPanel } from "./ScanPanel";
import { ScopeMatrixPanel } from "./ScopeMatrixPanel";
import { SetupChecklist } from "./SetupChecklist";

export const APPLICATION_KEY = "application";

export function ApplicationPage() {
  const { id = "" } = useParams();
  const q = useGraph([APPLICATION_KEY, id], ApplicationDocument, { id });
  const rs = q.data?.resourceServer;
  usePageTitle(rs?.name ?? "Application");
  if (q.isPending) return <Loading what="the application" />;
  if (q.error) return <ErrorAlert error={q.error} />;
  if (!rs)
    return (
      <>
        <h1>Application not found</h1>
        <p>No application of this workspace has this id (it may have been deleted).</p>
      </>
    );
  const b = badgesOf(rs);
  return (
    <>
      <div className="page-head">
        <h1>{rs.name}</h1>
        <span className="badges">
          <Badge tone={stateTone(rs.state)}>{STATE_LABEL[rs.state]}</Badge>
          {b.discovered && <Badge tone="info">Discovered</Badge>}
          {b.notLaunched && <Badge>Not launched</Badge>}
        </span>
      </div>
      <p className="lede">
        Protects <code>{rs.resourceUrl}</code>
      </p>
      <SetupChecklist rs={rs} />
      <ScanPanel rs={rs} />
      <ScopeMatrixPanel rs={rs} />
      <ActivationPanel rs={rs} roles={q.data.roles} />
      <DriftPanel rs={rs} />
      <RuntimePanel rs={rs} />
      <EvidencePanel rs={rs} />
    </>
  );
}
