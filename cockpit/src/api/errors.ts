// One error type for both APIs: the server's message, shown as sent (never swallowed), with the
// GraphQL `extensions.code` or the REST status, and the field a BAD_USER_INPUT names, so a form
// can show the message under that field.

export class ApiError extends Error {
  constructor(
    message: string,
    /** GraphQL extensions.code, or the REST `error` code word when there is one (mfa_required). */
    readonly code: string,
    readonly status: number,
    /** Everything else the server sent beside the message (failed checklist items, mfa_ticket...). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }

  /** The input field a bad-input message names ("input.clientName: ..." or "client_name: ..."). */
  get field(): string | undefined {
    const m = /^(?:input\.)?([A-Za-z_][\w.]*):\s/.exec(this.message);
    return m?.[1];
  }

  /** The server refused (a 4xx, or a GraphQL error with a code other than an internal one): an answer, not worth retrying. */
  get refusal(): boolean {
    return (this.status >= 400 && this.status < 500) || (this.code !== "INTERNAL_SERVER_ERROR" && this.code !== "HTTP_ERROR" && !this.code.startsWith("HTTP_5"));
  }

  /** The session is over (expired or refused token): the cockpit signs out. */
  get signedOut(): boolean {
    return this.status === 401 && this.code !== "mfa_required";
  }
}

export const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

const camel = (s: string) => s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * The names a field's errors may carry, whichever API sent them: REST and the services name fields
 * in snake_case ("client_id: ..."), the graph's argument checks in camelCase, under the argument
 * when one is given ("input.clientId: ...").
 */
const namesOf = (field: string, arg?: string) => {
  const base = [field, camel(field)];
  return arg ? [...base, ...base.map((n) => `${arg}.${n}`)] : base;
};

/** The message of a bad-input error naming `field` (or its camelCase name, optionally under the argument `arg`), for under that field. */
export const fieldErrorOf = (e: unknown, field: string, arg?: string): string | undefined =>
  e instanceof ApiError && e.field !== undefined && namesOf(field, arg).includes(e.field) ? e.message : undefined;

/** The error unless it is shown under one of the form's fields. */
export const formErrorOf = (e: unknown, fields: readonly string[], arg?: string): unknown => (fields.some((f) => fieldErrorOf(e, f, arg) !== undefined) ? null : e);
