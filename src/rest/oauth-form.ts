// The form parser of the OAuth endpoints (token, introspection, revocation, the authorization
// pages' posts): application/x-www-form-urlencoded bodies of a few short parameters (RFC 6749
// §3.2, RFC 7662 §2.1, RFC 7009 §2.1). It replaces body-parser on these routes, whose generic
// machinery (type-is and content-type per request, raw-body with iconv-lite decoding, on-finished,
// qs) was the largest single cost of an introspection in the CPU profile (docs/benchmarks.md,
// docs/decisions/0021-oauth-hot-path-http.md).
//
// What it keeps from body-parser 2 with `extended: false` (the parser it replaces), so answers do
// not change:
// - only bodies whose Content-Type is application/x-www-form-urlencoded are read (media type
//   compared case-insensitively, parameters allowed); anything else leaves req.body undefined and
//   the endpoint answers invalid_request when it reads its parameters;
// - charset utf-8 (the default) or iso-8859-1; any other is 415 (charset.unsupported); a leading
//   byte-order mark is dropped;
// - at most FORM_BODY_LIMIT_BYTES (a larger Content-Length is refused before reading) and
//   FORM_PARAMETER_LIMIT parameters: 413;
// - decoding as qs does it: '+' is a space, percent-escapes are decoded as UTF-8 and a value
//   whose escapes are not valid UTF-8 is kept as sent (so "%ED%A0%80" never becomes a lone
//   surrogate), a name without '=' has the empty value, empty names and "__proto__" are dropped,
//   a repeated name collects its values in an array, a name ends at "]=" when it has one, and one
//   pair of wrapping brackets is removed from a name ("[scope]" -> "scope"); no other bracket
//   syntax (qs with depth 0);
// - the error objects carry `status` and `type` as http-errors does, so the OAuth error handler
//   (rest/oauth-errors.ts via rest/errors.ts requestShapeFailure) answers exactly as before.
// Not kept: Content-Encoding (gzip, deflate, br) is refused with 415 encoding.unsupported, as
// body-parser refuses encodings it does not know; no OAuth client compresses these bodies.
// NUL and unpaired surrogates are not this parser's business: rest/input-hygiene.ts runs after it.
import type { IncomingMessage } from "node:http";
import type { Request, RequestHandler, Response } from "express";

/** OAuth bodies are small forms (RFC 6749 §4.1.3): size- and parameter-limited. */
export const FORM_BODY_LIMIT_BYTES = 16 * 1024;
export const FORM_PARAMETER_LIMIT = 50;

const FORM_TYPE = "application/x-www-form-urlencoded";

/** Shaped like body-parser's http-errors: the OAuth error handler reads `status` and `type`. */
class FormBodyError extends Error {
  readonly expose = true;
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
    this.name = "FormBodyError";
  }
}

// RFC 9110 §8.3.1 media type and parameters, as the content-type package parses them.
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const TYPE_RE = new RegExp(`^${TOKEN}/${TOKEN}$`);
const PARAM_RE = new RegExp(`; *(${TOKEN}) *= *("(?:[\\u000b\\u0020\\u0021\\u0023-\\u005b\\u005d-\\u007e\\u0080-\\u00ff]|\\\\[\\u000b\\u0020-\\u00ff])*"|${TOKEN}) *`, "y");

/**
 * The charset of a form Content-Type (lowercase, "" when absent or unreadable), or undefined when
 * the request is not a form. As body-parser decides: type-is looks at the media type only, and a
 * parameter list that does not parse leaves the charset at its default (utf-8).
 */
export function formCharset(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (header === FORM_TYPE) return ""; // what every client sends: no parsing needed
  const semi = header.indexOf(";");
  const type = (semi < 0 ? header : header.slice(0, semi)).trim();
  if (!TYPE_RE.test(type) || type.toLowerCase() !== FORM_TYPE) return undefined;
  if (semi < 0) return "";
  let charset = "";
  PARAM_RE.lastIndex = semi;
  while (PARAM_RE.lastIndex < header.length) {
    const m = PARAM_RE.exec(header);
    if (!m) return "";
    if (m[1]!.toLowerCase() === "charset") {
      const v = m[2]!;
      charset = (v.startsWith('"') ? v.slice(1, -1).replace(/\\([\u000b\u0020-\u00ff])/g, "$1") : v).toLowerCase();
    }
  }
  return charset;
}

/** type-is's hasBody: a body is announced by Transfer-Encoding or a numeric Content-Length. */
function announcesBody(req: IncomingMessage): boolean {
  return req.headers["transfer-encoding"] !== undefined || !Number.isNaN(Number(req.headers["content-length"] ?? NaN));
}

const decodeUtf8 = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s; // not valid UTF-8 escapes: kept as sent (qs does the same)
  }
};
const decodeLatin1 = (s: string): string => s.replace(/%[0-9a-f]{2}/gi, (e) => String.fromCharCode(parseInt(e.slice(1), 16)));

/** One name or value: '+' is a space, then percent-escapes (skipped when there are none). */
function decodePart(s: string, latin1: boolean): string {
  const spaced = s.includes("+") ? s.replace(/\+/g, " ") : s;
  if (!spaced.includes("%")) return spaced;
  return latin1 ? decodeLatin1(spaced) : decodeUtf8(spaced);
}

export type FormParams = Record<string, string | string[]>;

/** Parses a form body (already decoded to text); throws 413 past FORM_PARAMETER_LIMIT parameters. */
export function parseForm(body: string, latin1 = false): FormParams {
  const out: FormParams = Object.create(null) as FormParams;
  if (body.length === 0) return out;
  let count = 1;
  for (let i = body.indexOf("&"); i !== -1; i = body.indexOf("&", i + 1)) {
    if (++count > FORM_PARAMETER_LIMIT) throw new FormBodyError(413, "parameters.too.many", "too many parameters");
  }
  // qs reads %5B/%5D as brackets before splitting (it matters where a name ends in "]=").
  const text = body.includes("%5") ? body.replace(/%5B/gi, "[").replace(/%5D/gi, "]") : body;
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("&", start);
    if (end === -1) end = text.length;
    if (end > start) addPair(out, text.slice(start, end), latin1);
    start = end + 1;
  }
  return out;
}

function addPair(out: FormParams, part: string, latin1: boolean): void {
  const bracketEquals = part.indexOf("]=");
  const eq = bracketEquals === -1 ? part.indexOf("=") : bracketEquals + 1;
  const rawName = eq === -1 ? part : part.slice(0, eq);
  let name = decodePart(rawName, latin1);
  const value = eq === -1 ? "" : decodePart(part.slice(eq + 1), latin1);
  if (name.length > 1 && name.startsWith("[") && name.endsWith("]")) name = name.slice(1, -1);
  if (name === "" || name === "__proto__") return;
  const existing = out[name];
  if (existing === undefined) out[name] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else out[name] = [existing, value];
}

interface FormRead {
  next: (err?: unknown) => void;
  then: RequestHandler | undefined;
  res: Response;
  latin1: boolean;
  first: Buffer | undefined;
  chunks: Buffer[] | undefined;
  received: number;
  /** Set once the read ended one way or another: the listeners stay attached and ignore the rest. */
  done: boolean;
}

const READ = Symbol("oauthFormRead");
type Reading = Request & { [READ]?: FormRead };

// The stream listeners are module functions (`this` is the request) with the read's state on the
// request: no closures per request on the hot path (each also cost a name definition under tsx).
// They are not removed when the read ends (the four removals were ~0.5 % of the introspection
// profile, docs/benchmarks.md "Round 2"): a `done` flag makes any later event a no-op.
function onData(this: Reading, chunk: Buffer): void {
  const read = this[READ]!;
  if (read.done) return;
  read.received += chunk.length;
  if (read.received > FORM_BODY_LIMIT_BYTES) {
    read.done = true;
    return failAfterDraining(this, read.next, new FormBodyError(413, "entity.too.large", "request entity too large"));
  }
  if (read.first === undefined) read.first = chunk;
  else (read.chunks ??= [read.first]).push(chunk);
}

function onEnd(this: Reading): void {
  const read = this[READ]!;
  if (read.done) return;
  read.done = true;
  const raw = read.chunks ? Buffer.concat(read.chunks, read.received) : (read.first ?? Buffer.alloc(0));
  let text = raw.toString(read.latin1 ? "latin1" : "utf8");
  if (!read.latin1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    this.body = parseForm(text, read.latin1);
  } catch (e) {
    return read.next(e);
  }
  if (read.then) read.then(this, read.res, read.next);
  else read.next();
}

function onAbort(this: Reading): void {
  const read = this[READ]!;
  if (read.done) return;
  read.done = true;
  read.next(new FormBodyError(400, "request.aborted", "request aborted"));
}


/** Answers with `e` once the client has sent the rest of its body (as body-parser does). */
function failAfterDraining(req: Request, next: (err?: unknown) => void, e: FormBodyError): void {
  if (req.readableEnded || req.destroyed) return next(e);
  let answered = false;
  const answer = () => {
    if (!answered) (answered = true), next(e);
  };
  req.once("end", answer).once("close", answer);
  req.resume();
}

/**
 * Reads and parses the body of a form request into req.body (a null-prototype record of strings
 * and string arrays), then runs `then` (the OAuth routes: input hygiene) or the next middleware;
 * leaves any other request untouched. Errors go to next() once the request has been read to its
 * end, so the connection stays usable.
 */
export function oauthFormBody(then?: RequestHandler): RequestHandler {
  return (req, res, next) => {
    const charset = req.body !== undefined || req.readableEnded || !announcesBody(req) ? undefined : formCharset(req.headers["content-type"]);
    if (charset === undefined) return then ? then(req, res, next) : next(); // not a form to read
    if (charset !== "" && charset !== "utf-8" && charset !== "iso-8859-1") return failAfterDraining(req, next, new FormBodyError(415, "charset.unsupported", `unsupported charset "${charset.toUpperCase()}"`));
    const encoding = req.headers["content-encoding"];
    if (encoding !== undefined && encoding.toLowerCase() !== "identity") return failAfterDraining(req, next, new FormBodyError(415, "encoding.unsupported", `unsupported content encoding "${encoding}"`));
    const declared = req.headers["content-length"];
    if (declared !== undefined && Number(declared) > FORM_BODY_LIMIT_BYTES) return failAfterDraining(req, next, new FormBodyError(413, "entity.too.large", "request entity too large"));
    (req as Reading)[READ] = { next, then, res, latin1: charset === "iso-8859-1", first: undefined, chunks: undefined, received: 0, done: false };
    req.on("data", onData).on("end", onEnd).on("aborted", onAbort).on("error", onAbort);
  };
}
