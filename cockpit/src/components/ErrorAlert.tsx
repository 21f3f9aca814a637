// A server error, shown with its message as the server sent it (never swallowed).
import { ApiError, messageOf } from "../api/errors";

export function ErrorAlert({ error, title = "The server refused this" }: { error: unknown; title?: string }) {
  if (!error) return null;
  const failed = error instanceof ApiError && Array.isArray(error.details.failed) ? (error.details.failed as string[]) : [];
  return (
    <div role="alert" className="alert alert-error">
      <strong>{title}:</strong> {messageOf(error)}
      {failed.length > 0 && <span> (failing: {failed.join(", ")})</span>}
    </div>
  );
}

/** A short success message read out by screen readers (role=status). */
export function Notice({ children }: { children: React.ReactNode }) {
  if (!children) return null;
  return (
    <p role="status" className="alert alert-ok">
      {children}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return <p aria-live="polite" className="muted">Loading {what}…</p>;
}
