// Every destructive action asks first and says what it affects; `typeToConfirm` asks for a name
// to be typed (a public tool: docs/decisions/0015-public-tool-confirmation.md).
import { useState, type ReactNode } from "react";
import { Dialog } from "./Dialog";
import { ErrorAlert } from "./ErrorAlert";
import { TextField } from "./TextField";

export function ConfirmDialog(props: {
  title: string;
  /** What the action affects, in words. */
  children: ReactNode;
  confirmLabel: string;
  typeToConfirm?: string;
  pending?: boolean;
  error?: unknown;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const [typed, setTyped] = useState("");
  const ready = !props.typeToConfirm || typed === props.typeToConfirm;
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (ready) props.onConfirm();
        }}
      >
        <div className="affects">{props.children}</div>
        {props.typeToConfirm && (
          <TextField label={`Type ${props.typeToConfirm} to confirm`} name="confirm" value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" required />
        )}
        <ErrorAlert error={props.error} />
        <div className="actions">
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="button-danger" disabled={!ready || props.pending}>
            {props.confirmLabel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
