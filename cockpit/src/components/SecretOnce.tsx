// A secret the server shows once (client secret, introspection secret, recovery codes): shown in
// full with a copy button and the warning that it will not be shown again.
import { useState } from "react";

export function CopyButton({ text, label }: { text: string; label: string }) {
  const [copied, setCopied] = useState<"" | "yes" | "no">("");
  return (
    <>
      <button
        type="button"
        onClick={() =>
          navigator.clipboard.writeText(text).then(
            () => setCopied("yes"),
            () => setCopied("no"),
          )
        }
      >
        {label}
      </button>
      <span role="status" className="muted">
        {copied === "yes" ? " Copied." : copied === "no" ? " The browser refused the clipboard: select the text and copy it." : ""}
      </span>
    </>
  );
}

export function SecretOnce({ label, secret }: { label: string; secret: string }) {
  return (
    <div className="secret">
      <p>
        <strong>{label}</strong> — shown only now. Store it before you close this; a lost secret is replaced by rotating it.
      </p>
      <code data-testid="secret" className="secret-value">
        {secret}
      </code>
      <CopyButton text={secret} label={`Copy ${label.toLowerCase()}`} />
    </div>
  );
}
