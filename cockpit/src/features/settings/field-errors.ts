// A server message for one form field, whichever API sent it: REST and the services name fields
// in snake_case ("client_id: ..."), the graph's argument checks in camelCase under the argument
// ("input.clientId: ...", "reason.reason: ..."). The message itself is shown as sent.
import { ApiError } from "../../api/errors";

const camel = (s: string) => s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/** The names a field's errors may carry: snake, camel, and either under the argument name. */
const namesOf = (field: string, arg?: string) => {
  const base = [field, camel(field)];
  return arg ? [...base, ...base.map((n) => `${arg}.${n}`)] : base;
};

export function errorUnder(e: unknown, field: string, arg?: string): string | undefined {
  return e instanceof ApiError && e.field !== undefined && namesOf(field, arg).includes(e.field) ? e.message : undefined;
}

/** The error unless one of `fields` shows it. */
export function errorOutside(e: unknown, fields: readonly string[], arg?: string): unknown {
  return fields.some((f) => errorUnder(e, f, arg)) ? null : e;
}
