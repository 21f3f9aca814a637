// src/http-server.ts: the server main.ts runs creates its request and response objects with the
// Express app's prototypes already in place (docs/decisions/0021-oauth-hot-path-http.md). This
// must change nothing on the wire: the same app behind node's default server and behind ours
// answers the same raw requests byte for byte (status line, every header in order, body), for the
// OAuth answers and errors (issue 13: error bodies and headers unchanged) and a few other routes.
import { createServer, IncomingMessage, ServerResponse, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, type Harness } from "./helpers/harness";
import { createClient, createServer as createResourceServer, type ClientFixture, type ServerFixture } from "./helpers/oauth-fixtures";
import { bornWithAppPrototypes } from "../src/http-server";

let h: Harness;
let plain: Server;
let plainUrl: string;
let client: ClientFixture;
let rs: ServerFixture;
let accessToken: string;

beforeAll(async () => {
  h = await startToolgate();
  // The same app behind node's default server (objects re-prototyped by Express per request).
  plain = createServer(h.toolgate.app);
  await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
  plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  rs = await createResourceServer(h);
  client = await createClient(h, rs.id);
  const r = await fetch(`${h.url}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic(client.client_id, client.client_secret) },
    body: "grant_type=client_credentials&scope=files%3Aread",
  });
  accessToken = ((await r.json()) as { access_token: string }).access_token;
});
afterAll(async () => {
  await new Promise<void>((resolve) => plain?.close(() => resolve()));
  await h?.close();
});

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;

/** Sends `raw` on a new connection and returns everything the server wrote until it closed (Connection: close). */
function exchange(url: string, raw: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1", () => socket.write(raw));
    const chunks: Buffer[] = [];
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("end", () => resolve(Buffer.concat(chunks).toString("latin1")));
    socket.on("error", reject);
  });
}

/** The parts that differ between two answers by design: the clock and a freshly signed token. */
const normalised = (answer: string) =>
  answer
    .replace(/^Date: .*$/m, "Date: <date>")
    .replace(/"access_token":"[^"]+"/, '"access_token":"<jwt>"')
    .replace(/^Content-Length: \d+$/m, (line) => (answer.includes('"access_token"') ? "Content-Length: <n>" : line));

function request(method: string, path: string, headers: Record<string, string>, body = ""): string {
  const lines = [`${method} ${path} HTTP/1.1`, "Host: toolgate.test", "Connection: close", "X-Request-Id: pinned-request-id"];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  if (body || method === "POST") lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join("\r\n")}\r\n\r\n${body}`;
}

const FORM = "application/x-www-form-urlencoded";

describe("the HTTP server (requests born with the app's prototypes)", () => {
  it("creates request and response objects whose prototypes are already the app's (where V8 makes the switch costly)", async () => {
    let seen: { req: object | null; res: object | null } | undefined;
    const server = (h as unknown as { server: Server }).server;
    const spy = (req: IncomingMessage, res: ServerResponse) => (seen = { req: Object.getPrototypeOf(req), res: Object.getPrototypeOf(res) });
    server.prependListener("request", spy);
    try {
      expect((await fetch(`${h.url}/healthz`)).status).toBe(200);
    } finally {
      server.off("request", spy);
    }
    // Seen before Express ran: Express's own Object.setPrototypeOf then has nothing to change.
    // On V8 13+ (Node 24) node's own objects, which Express then switches at no measurable cost.
    expect(seen?.req).toBe(bornWithAppPrototypes ? h.toolgate.app.request : IncomingMessage.prototype);
    expect(seen?.res).toBe(bornWithAppPrototypes ? h.toolgate.app.response : ServerResponse.prototype);
  });

  const cases: [string, () => string][] = [
    ["token: client credentials", () => request("POST", "/oauth/token", { "Content-Type": FORM, Authorization: basic(client.client_id, client.client_secret) }, "grant_type=client_credentials&scope=files%3Aread")],
    ["token: wrong secret (401 invalid_client)", () => request("POST", "/oauth/token", { "Content-Type": FORM, Authorization: basic(client.client_id, "wrong") }, "grant_type=client_credentials")],
    ["token: scope not allowed (400 invalid_scope)", () => request("POST", "/oauth/token", { "Content-Type": FORM, Authorization: basic(client.client_id, client.client_secret) }, "grant_type=client_credentials&scope=admin")],
    ["token: unsupported grant type", () => request("POST", "/oauth/token", { "Content-Type": FORM, Authorization: basic(client.client_id, client.client_secret) }, "grant_type=password")],
    ["token: JSON body (415)", () => request("POST", "/oauth/token", { "Content-Type": "application/json", Authorization: basic(client.client_id, client.client_secret) }, '{"grant_type":"client_credentials"}')],
    ["token: no body", () => request("POST", "/oauth/token", { Authorization: basic(client.client_id, client.client_secret) })],
    ["token: NUL in the form (400)", () => request("POST", "/oauth/token", { "Content-Type": FORM, Authorization: basic(client.client_id, client.client_secret) }, "grant_type=client_credentials&scope=%00")],
    ["introspect: active machine token", () => request("POST", "/oauth/introspect", { "Content-Type": FORM, Authorization: basic(rs.id, rs.introspection_secret) }, `token=${accessToken}`)],
    ["introspect: unknown token (active false)", () => request("POST", "/oauth/introspect", { "Content-Type": FORM, Authorization: basic(rs.id, rs.introspection_secret) }, "token=not-a-token")],
    ["introspect: wrong resource-server secret (401)", () => request("POST", "/oauth/introspect", { "Content-Type": FORM, Authorization: basic(rs.id, "wrong") }, `token=${accessToken}`)],
    ["introspect: no credentials (401)", () => request("POST", "/oauth/introspect", { "Content-Type": FORM }, `token=${accessToken}`)],
    ["introspect: form too large (413)", () => request("POST", "/oauth/introspect", { "Content-Type": FORM, Authorization: basic(rs.id, rs.introspection_secret) }, `token=${"a".repeat(20_000)}`)],
    ["revoke: unknown token", () => request("POST", "/oauth/revoke", { "Content-Type": FORM, Authorization: basic(client.client_id, client.client_secret) }, "token=not-a-token")],
    ["OPTIONS /oauth/token", () => request("OPTIONS", "/oauth/token", {})],
    ["GET /oauth/token (404)", () => request("GET", "/oauth/token", {})],
    ["discovery", () => request("GET", "/.well-known/oauth-authorization-server", {})],
    ["unknown admin route (404)", () => request("GET", "/svc/nope", {})],
    ["admin route without a token (401)", () => request("GET", "/svc/resource-servers", {})],
  ];

  it.each(cases)("answers %s byte for byte as node's default server does", async (_name, build) => {
    const raw = build();
    const ours = await exchange(h.url, raw);
    const theirs = await exchange(plainUrl, raw);
    expect(ours).toMatch(/^HTTP\/1\.1 \d{3} /);
    expect(normalised(ours)).toBe(normalised(theirs));
  });
});
