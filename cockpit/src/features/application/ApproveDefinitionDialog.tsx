// A tool whose server now describes it differently than when it was mapped: the SDK denies it
// until an administrator approves the new definition. The dialog shows old and new first.
import { useGraphMutation } from "../../app/data";
import { Diff } from "../../components/Diff";
import { Dialog } from "../../components/Dialog";
import { ErrorAlert } from "../../components/ErrorAlert";
import { ApproveToolDefinitionDocument } from "../../graphql/generated/graphql";
import { APPLICATION_KEY } from "./ApplicationPage";
import type { App, AppTool } from "./types";

const pretty = (json: string | null | undefined) => {
  if (!json) return "(none)";
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
};

export function ApproveDefinitionDialog({ rs, tool, onClose }: { rs: App; tool: AppTool; onClose: () => void }) {
  const approve = useGraphMutation(ApproveToolDefinitionDocument, [[APPLICATION_KEY, rs.id], ["applications"]]);
  const old = tool.approvedDefinition;
  return (
    <Dialog title={`Review the new definition of ${tool.name}`} onClose={onClose} wide>
      <p>
        {rs.name} now describes <code>{tool.name}</code> differently than when it was approved. Agents read this text before they call the tool, so the runtime denies it until you approve the new
        definition.
      </p>
      {old ? (
        <>
          <Diff label="Description" before={old.description ?? "(none)"} after={tool.description ?? "(none)"} />
          <Diff label="Input schema" before={pretty(old.inputSchemaJson)} after={pretty(tool.inputSchemaJson)} />
        </>
      ) : (
        <>
          <p className="hint">The approved definition was pinned before Toolgate kept its text; only the new one can be shown.</p>
          <Diff label="Description" before="" after={tool.description ?? "(none)"} />
          <Diff label="Input schema" before="" after={pretty(tool.inputSchemaJson)} />
        </>
      )}
      <ErrorAlert error={approve.error} />
      <div className="actions">
        <button type="button" onClick={onClose}>
          Keep it denied
        </button>
        <button type="button" className="button-primary" disabled={approve.isPending} onClick={() => approve.mutate({ id: rs.id, toolId: tool.id }, { onSuccess: onClose })}>
          Approve the new definition
        </button>
      </div>
    </Dialog>
  );
}
