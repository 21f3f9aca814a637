// One labelled input: the label, the hint and the error under it are tied to it (aria-describedby,
// aria-invalid); id = name, so a server message naming the field (BAD_USER_INPUT) lands here.
import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from "react";

interface Common {
  label: string;
  name: string;
  hint?: ReactNode;
  error?: string;
}

function described(name: string, hint?: ReactNode, error?: string) {
  const ids = [hint ? `${name}-hint` : "", error ? `${name}-error` : ""].filter(Boolean).join(" ");
  return ids || undefined;
}

function Extras({ name, hint, error }: Omit<Common, "label">) {
  return (
    <>
      {hint && (
        <span id={`${name}-hint`} className="hint">
          {hint}
        </span>
      )}
      {error && (
        <span id={`${name}-error`} className="field-error">
          {error}
        </span>
      )}
    </>
  );
}

export function TextField({ label, name, hint, error, ...input }: Common & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <div className="field">
      <label htmlFor={name}>{label}</label>
      <input id={name} name={name} data-testid={name} aria-invalid={error ? true : undefined} aria-describedby={described(name, hint, error)} {...input} />
      <Extras name={name} hint={hint} error={error} />
    </div>
  );
}

export function SelectField({ label, name, hint, error, children, ...select }: Common & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <div className="field">
      <label htmlFor={name}>{label}</label>
      <select id={name} name={name} data-testid={name} aria-invalid={error ? true : undefined} aria-describedby={described(name, hint, error)} {...select}>
        {children}
      </select>
      <Extras name={name} hint={hint} error={error} />
    </div>
  );
}

export function CheckboxField({ label, name, hint, id = name, ...input }: Omit<Common, "error"> & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <div className="field field-check">
      <input type="checkbox" id={id} name={name} data-testid={id} aria-describedby={hint ? `${id}-hint` : undefined} {...input} />
      <label htmlFor={id}>{label}</label>
      {hint && (
        <span id={`${id}-hint`} className="hint">
          {hint}
        </span>
      )}
    </div>
  );
}
