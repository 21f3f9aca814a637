// A modal dialog on the native <dialog> (showModal: focus moves in, Escape closes, the page behind
// is inert). The title labels it. Open dialogs live in the URL (?action=...) where a screen deep-links them.
import { useEffect, useId, useRef, type ReactNode } from "react";

export function Dialog({ title, onClose, children, wide }: { title: string; onClose: () => void; children: ReactNode; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
    return () => d?.close();
  }, []);
  return (
    <dialog ref={ref} aria-labelledby={titleId} className={wide ? "dialog dialog-wide" : "dialog"} onCancel={(e) => (e.preventDefault(), onClose())}>
      <div className="dialog-head">
        <h2 id={titleId}>{title}</h2>
        <button type="button" className="button-quiet" onClick={onClose} aria-label="Close">
          ×
        </button>
      </div>
      {children}
    </dialog>
  );
}
