// The OAuth endpoints' form parser (src/rest/oauth-form.ts) against the parser it replaced
// (body-parser's urlencoded, extended: false, 16 kB, 50 parameters), request by request over real
// HTTP: the same bodies, the same refusals, answered through the same hygiene middleware and the
// same OAuth error handler, must give byte-identical answers (status, content type, body). The
// two documented differences (docs/decisions/0021-oauth-hot-path-http.md) are asserted on their own.
import { request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type Express, type RequestHandler } from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { oauthFormBody, parseForm, formCharset } from "../src/rest/oauth-form";
import { rejectUnsafeInput } from "../src/rest/input-hygiene";
import { oauthErrorHandler } from "../src/rest/oauth-errors";
import { createLogger } from "../src/shared/logger";

const FORM = "application/x-www-form-urlencoded";

function appWith(parser: RequestHandler, isForm: (req: express.Request) => boolean): Express {
  const app = express();
  app.post("/form", parser, rejectUnsafeInput, (req, res) => {
    res.json({ form: isForm(req), body: req.body === undefined ? null : { ...req.body } });
  });
  app.use(oauthErrorHandler(createLogger("silent")));
  return app;
}

let servers: Server[] = [];
let oldUrl: URL;
let newUrl: URL;
const listen = (app: Express) =>
  new Promise<URL>((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(new URL(`http://127.0.0.1:${(s.address() as AddressInfo).port}`)));
    servers.push(s);
  });

beforeAll(async () => {
  oldUrl = await listen(appWith(express.urlencoded({ extended: false, limit: "16kb", parameterLimit: 50 }), (req) => Boolean(req.is(FORM))));
  newUrl = await listen(appWith(oauthFormBody(), (req) => req.body !== undefined));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
});

interface Raw {
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Send the body in chunks with Transfer-Encoding: chunked (no Content-Length). */
  chunked?: boolean;
}

/** One raw request: status, content type and body text of the answer. */
function send(base: URL, raw: Raw): Promise<string> {
  return new Promise((resolve, reject) => {
    const body = raw.body === undefined ? undefined : Buffer.isBuffer(raw.body) ? raw.body : Buffer.from(raw.body);
    const headers: Record<string, string> = { ...raw.headers };
    if (body && !raw.chunked && headers["content-length"] === undefined) headers["content-length"] = String(body.length);
    const req = httpRequest({ host: base.hostname, port: base.port, path: "/form", method: "POST", headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve(`${res.statusCode} ${res.headers["content-type"]} ${res.headers["cache-control"] ?? ""} ${Buffer.concat(chunks).toString()}`));
    });
    req.on("error", reject);
    if (body && raw.chunked) {
      req.write(body.subarray(0, Math.floor(body.length / 2)));
      req.end(body.subarray(Math.floor(body.length / 2)));
    } else req.end(body);
  });
}

const form = (body: string | Buffer, headers: Record<string, string> = {}): Raw => ({ headers: { "content-type": FORM, ...headers }, body });

const CORPUS: [string, Raw][] = [
  ["client credentials", form("grant_type=client_credentials&scope=files%3Aread")],
  ["introspection", form("token=eyJhbGciOi.eyJzdWIiOiJ4In0.c2ln&token_type_hint=access_token")],
  ["plus and escapes", form("a=b+c%20d&e=%E2%82%AC&f=%F0%9F%98%80")],
  ["repeated name", form("scope=a&scope=b&scope=c&resource=x")],
  ["name without value", form("a&b=&=c&&d=1")],
  ["empty body", form("")],
  ["NUL escape", form("grant_type=a%00b")],
  ["NUL in a name", form("a%00b=1")],
  ["raw NUL byte", form(Buffer.from("a=\u0000"))],
  ["overlong NUL", form("a=%C0%80")],
  ["CESU-8 surrogate", form("a=%ED%A0%80&b=%ED%A0%80%ED%B0%80")],
  ["bad escapes", form("a=%zz&b=%&c=%E2%82")],
  ["invalid UTF-8 bytes", form(Buffer.from([0x61, 0x3d, 0xff, 0xfe, 0x80]))],
  ["byte-order mark", form(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("a=1")]))],
  ["bracket names", form("a[]=1&a[]=2&[b]=3&c[d]=4&e%5B%5D=5&f[=6&g]=7&h]=8=9")],
  ["escaped brackets", form("a%5B%5D=1&a%5B%5D=2&%5Bb%5D=3&c=d%5D=e&f=g]=h&i%5D=j")],
  ["prototype names", form("__proto__=x&constructor=y&toString=z&hasOwnProperty=w&[__proto__]=v")],
  ["numeric names", form("0=a&1=b&[2]=c")],
  ["50 parameters", form(Array.from({ length: 50 }, (_, i) => `p${i}=${i}`).join("&"))],
  ["51 parameters", form(Array.from({ length: 51 }, (_, i) => `p${i}=${i}`).join("&"))],
  ["51 empty parameters", form("&".repeat(50))],
  ["16 kB", form(`a=${"x".repeat(16 * 1024 - 2)}`)],
  ["over 16 kB", form(`a=${"x".repeat(16 * 1024)}`)],
  ["over 16 kB, chunked", { ...form(`a=${"x".repeat(20_000)}`), chunked: true }],
  ["chunked", { ...form("grant_type=client_credentials&scope=x"), chunked: true }],
  ["Content-Length over the limit", form("a=1", { "content-length": "3" })],
  ["charset utf-8", form("a=%E2%82%AC", { "content-type": `${FORM}; charset=UTF-8` })],
  ["quoted charset", form("a=1", { "content-type": `${FORM}; charset="utf-8"` })],
  ["charset iso-8859-1", form("a=%E9%FC&b=caf%C3%A9", { "content-type": `${FORM};charset=ISO-8859-1` })],
  ["latin1 bytes", form(Buffer.from([0x61, 0x3d, 0xe9]), { "content-type": `${FORM}; charset=iso-8859-1` })],
  ["charset utf-16", form("a=1", { "content-type": `${FORM}; charset=utf-16` })],
  ["charset koi8-r", form("a=1", { "content-type": `${FORM}; charset=koi8-r` })],
  ["upper-case type", form("a=1", { "content-type": "Application/X-WWW-Form-URLencoded" })],
  ["type with spaces", form("a=1", { "content-type": `  ${FORM}  ; charset=utf-8 ` })],
  ["other parameter", form("a=1", { "content-type": `${FORM}; boundary=x` })],
  ["malformed parameter", form("a=1", { "content-type": `${FORM}; charset` })],
  ["malformed type", form("a=1", { "content-type": `${FORM}/x` })],
  ["JSON", { headers: { "content-type": "application/json" }, body: '{"grant_type":"client_credentials"}' }],
  ["text", { headers: { "content-type": "text/plain" }, body: "grant_type=client_credentials" }],
  ["no content type", { headers: {}, body: "grant_type=client_credentials" }],
  ["no body", { headers: { "content-type": FORM } }],
  ["identity encoding", form("a=1", { "content-encoding": "identity" })],
  ["unknown encoding", form("a=1", { "content-encoding": "x-unknown" })],
  ["NUL in Basic credentials", form("a=1", { authorization: `Basic ${Buffer.from("a\u0000b:secret").toString("base64")}` })],
];

describe("OAuth form parser", () => {
  it.each(CORPUS)("answers %s exactly as body-parser did", async (_name, raw) => {
    const [before, after] = await Promise.all([send(oldUrl, raw), send(newUrl, raw)]);
    expect(after).toBe(before);
  });

  it("the corpus covers every outcome: parsed, not a form, 400, 413 and 415", async () => {
    const statuses = new Set((await Promise.all(CORPUS.map(([, raw]) => send(newUrl, raw)))).map((a) => a.slice(0, 3)));
    expect([...statuses].sort()).toEqual(["200", "400", "413", "415"]);
  });

  it("refuses a compressed form with 415 invalid_request (body-parser inflated it; no OAuth client compresses these bodies)", async () => {
    const answer = await send(newUrl, form("a=1", { "content-encoding": "gzip" }));
    expect(answer).toBe('415 application/json; charset=utf-8 no-store {"error":"invalid_request","error_description":"unsupported content type or charset"}');
  });

  it("parses a bare [] name as an empty name, dropped (qs made it the key 0)", () => {
    expect({ ...parseForm("[]=x&a=1") }).toEqual({ a: "1" });
  });

  it("reads the charset from the Content-Type as content-type does", () => {
    expect(formCharset(FORM)).toBe("");
    expect(formCharset(`${FORM}; charset="ISO-8859-1"`)).toBe("iso-8859-1");
    expect(formCharset("application/json")).toBeUndefined();
    expect(formCharset(`${FORM}; charset`)).toBe("");
    expect(formCharset(`${FORM}x`)).toBeUndefined();
    expect(formCharset(undefined)).toBeUndefined();
  });
});
