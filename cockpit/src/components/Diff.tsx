// Old and new side by side as one unified diff: "−" lines were removed, "+" lines added (the
// signs are text, so a screen reader reads them; colour only repeats them).
import { lineDiff } from "./diff";

export function Diff({ before, after, label }: { before: string; after: string; label: string }) {
  const lines = lineDiff(before, after);
  const changed = lines.some((l) => l.kind !== "same");
  return (
    <figure className="diff">
      <figcaption>{label}</figcaption>
      {changed ? (
        <pre aria-label={label}>
          {lines.map((l, n) => (
            <span key={n} className={`diff-${l.kind}`}>
              {l.kind === "removed" ? "− " : l.kind === "added" ? "+ " : "  "}
              {l.text}
              {"\n"}
            </span>
          ))}
        </pre>
      ) : (
        <p className="muted">Unchanged.</p>
      )}
    </figure>
  );
}
