// OAuth request parameters as the form parser hands them over. RFC 6749 §3.1/§3.2: parameters
// sent without a value are treated as omitted, a parameter must not appear more than once, and
// unrecognised parameters are ignored.
import { oauthError } from "./errors";

export type RawParams = Record<string, unknown>;

/** A single-valued parameter: undefined when absent or empty; invalid_request when repeated or not text. */
export function single(params: RawParams, name: string): string | undefined {
  const v = params[name];
  if (v === undefined || v === "") return undefined;
  if (typeof v !== "string") throw oauthError("invalid_request", `parameter ${name} repeated or not text`);
  return v;
}

/** A required single-valued parameter. */
export function required(params: RawParams, name: string): string {
  const v = single(params, name);
  if (v === undefined) throw oauthError("invalid_request", `parameter ${name} missing`);
  return v;
}

/** A parameter that RFC 8707 allows to repeat (`resource`): every non-empty value, in order. */
export function multi(params: RawParams, name: string): string[] {
  const v = params[name];
  if (v === undefined) return [];
  const list = Array.isArray(v) ? v : [v];
  if (!list.every((x) => typeof x === "string")) throw oauthError("invalid_request", `parameter ${name} not text`);
  return (list as string[]).filter((x) => x !== "");
}
