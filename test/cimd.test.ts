// Client ID Metadata Documents over real HTTPS on loopback (TOOLGATE_SCAN_ALLOW_PRIVATE=1, the
// test's CA trusted through TOOLGATE_OUTBOUND_CA_FILE): a URL client_id is fetched, validated and
// used as a public client of no workspace (connection per server); every refusal case of the draft
// (draft-ietf-oauth-client-id-metadata-document §3-§6) ends on an error page without redirecting; the SSRF guard refuses
// special-use addresses without connecting when private networks are not allowed; HTTP caching is
// honoured, failures are never cached; a changed redirect set is staged until approved.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash, randomBytes } from "node:crypto";
import { startToolgate, type Harness } from "./helpers/harness";
import { startSecondApp } from "./helpers/second-app";
import { CIMD_UNREACHABLE } from "../src/modules/clients/cimd/cimd-clients";
import { browser, exchangeCode, setUpSignIn, type CodeFlow } from "./helpers/signin-flow";
import { loopbackCertificate, type TestCertificate } from "./helpers/tls";
import { CimdHost } from "./helpers/cimd-host";

const REDIRECT = "http://127.0.0.1/callback";
const USER = { email: "cid@example.test", password: "cid-password-123" };

let cert: TestCertificate;
let host: CimdHost;
let h: Harness;
const logs: Record<string, unknown>[] = [];
let a: Awaited<ReturnType<typeof setUpSignIn>>;

const doc = (clientId: string, over: Record<string, unknown> = {}) => ({
  client_id: clientId,
  client_name: "Doc Client",
  redirect_uris: [REDIRECT],
  token_endpoint_auth_method: "none",
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  ...over,
});
let docSerial = 0;
/** Serves a valid document (as changed by `over`) at a fresh path; answers its URL. */
function hosted(over: Record<string, unknown> = {}, answer: { status?: number; headers?: Record<string, string> } = {}): { url: string; path: string } {
  const path = `/clients/${++docSerial}.json`;
  const url = host.origin + path;
  host.serve(path, { ...answer, body: doc(url, over) });
  return { url, path };
}

beforeAll(async () => {
  cert = loopbackCertificate();
  host = await CimdHost.start(cert);
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1", TOOLGATE_OUTBOUND_CA_FILE: cert.certFile }, logs });
  a = await setUpSignIn(h.url, h.adminToken, { name: "Docs", scopes: ["docs:read"], users: [USER], redirectUri: REDIRECT });
});
afterAll(async () => {
  await h?.close();
  await host?.close();
});

function authorizeUrl(clientId: string, redirectUri = "http://127.0.0.1:53111/callback", verifier = "v".repeat(43), issuer = h.config.publicUrl): URL {
  const url = new URL(`${issuer}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state: "s",
    resource: a.resource,
  }).toString();
  return url;
}
const open = (clientId: string, redirectUri?: string) => browser(h.config.publicUrl, h.url).open(authorizeUrl(clientId, redirectUri));
const errorPageOf = (html: string) => /<p class="error" role="alert">([^<]*)<\/p>/.exec(html)?.[1]?.replace(/&#39;/g, "'");

describe("a CIMD client", () => {
  it("is advertised", async () => {
    const r = await h.request("GET", "/.well-known/oauth-authorization-server");
    expect(r.body.client_id_metadata_document_supported).toBe(true);
    expect(r.body.token_endpoint_auth_methods_supported).toContain("none");
  });

  it("signs a user in with its URL as client_id: the page names the document's host, the token works, a connection is listed", async () => {
    const { url } = hosted();
    const verifier = randomBytes(32).toString("base64url");
    const bw = browser(h.config.publicUrl, h.url);
    const login = await bw.open(authorizeUrl(url, "http://127.0.0.1:53111/callback", verifier));
    expect(login.status).toBe(200);
    expect(login.html).toContain(`<strong><bdi>Doc Client</bdi></strong> <em>(name not verified)</em> from <strong><bdi>${new URL(url).host}</bdi></strong>`);
    const consent = await bw.submit(login, USER);
    expect(consent.html).toContain("<strong><bdi>127.0.0.1:53111</bdi></strong>");
    const done = await bw.submit(consent, { decision: "allow" });
    const code = done.location!.searchParams.get("code")!;
    const flow: CodeFlow = { publicUrl: h.config.publicUrl, serverUrl: h.url, clientId: url, redirectUri: "http://127.0.0.1:53111/callback", resource: a.resource, scope: "", ...USER };
    const token = await exchangeCode(flow, code, verifier);
    expect(token.status).toBe(200);
    const introspected = await h.request("POST", "/oauth/introspect", { basic: [a.serverId, a.introspectionSecret], form: { token: token.body.access_token } });
    expect(introspected.body).toMatchObject({ active: true, client_id: url, scope: "docs:read" });
    const list = await h.admin("GET", `/svc/resource-servers/${a.serverId}/clients?kind=agent`);
    expect(list.body.items.find((c: any) => c.client_id === url)).toMatchObject({ registration_mode: "cimd", status: "approved", client_name_verified: false });
  });
});

describe("documents that are refused (error page, never a redirect)", () => {
  const refusals: Array<[string, () => string, string]> = [
    ["client_id differs from the URL", () => host.serve("/bad/other-id.json", { body: doc("https://elsewhere.example/cimd.json") }), "the metadata document's client_id differs from its URL"],
    ["a redirect", () => host.serve("/bad/redirect.json", { status: 302, headers: { location: "/clients/1.json" }, body: "" }), "the metadata document answered HTTP 302; redirects are not followed"],
    ["a non-200 answer", () => host.serve("/bad/gone.json", { status: 404, body: "" }), "the metadata document answered HTTP 404 (200 required)"],
    ["more than 5 KB", () => { const u = host.origin + "/bad/big.json"; host.serve("/bad/big.json", { body: doc(u, { padding: "x".repeat(6000) }) }); return u; }, "the metadata document is larger than 5120 bytes"],
    ["not JSON", () => host.serve("/bad/html.json", { body: "<html>" }), "the metadata document is not JSON"],
    ["a shared-secret method", () => { const u = host.origin + "/bad/secret-method.json"; host.serve("/bad/secret-method.json", { body: doc(u, { token_endpoint_auth_method: "client_secret_basic" }) }); return u; }, "token_endpoint_auth_method client_secret_basic: a metadata document cannot use a shared secret"],
    ["a client_secret", () => { const u = host.origin + "/bad/secret.json"; host.serve("/bad/secret.json", { body: doc(u, { client_secret: "s" }) }); return u; }, "the metadata document must not contain client_secret"],
    ["no client_name", () => { const u = host.origin + "/bad/nameless.json"; host.serve("/bad/nameless.json", { body: doc(u, { client_name: undefined }) }); return u; }, "the metadata document has no client_name"],
    ["a bad redirect URI", () => { const u = host.origin + "/bad/redirect-uri.json"; host.serve("/bad/redirect-uri.json", { body: doc(u, { redirect_uris: ["http://evil.example/cb"] }) }); return u; }, "the metadata document is invalid: redirect_uris[0]: uses http on a host other than 127.0.0.1, [::1] or localhost"],
    ["a client_name with a bidirectional control", () => { const u = host.origin + "/bad/bidi.json"; host.serve("/bad/bidi.json", { body: doc(u, { client_name: "Doc \u202Etneilc" }) }); return u; }, "the metadata document is invalid: client_name: must not contain bidirectional control characters (U+202A-U+202E, U+2066-U+2069)"],
  ];
  // What answers at an address reached only because private networks are allowed
  // (TOOLGATE_SCAN_ALLOW_PRIVATE=1, as here) is not shown to whoever opened the page: it goes to
  // the log, so the authorization page cannot be used to map the network.
  const transport = new Set(["a redirect", "a non-200 answer", "more than 5 KB", "not JSON"]);
  it.each(refusals)("%s", async (what, serve, reason) => {
    const id = serve();
    const r = await open(id);
    expect(r.status).toBe(400);
    expect(r.location).toBeUndefined();
    if (!transport.has(what)) {
      expect(errorPageOf(r.html)).toBe(`The client's metadata document cannot be used: ${reason}.`);
      return;
    }
    expect(errorPageOf(r.html)).toBe(`The client's metadata document cannot be used: ${CIMD_UNREACHABLE}.`);
    expect(logs).toContainEqual(expect.objectContaining({ msg: "client metadata document refused", client_id: id, reason }));
  });

  it("a client_id URL without a path, with a query or a fragment", async () => {
    for (const [id, reason] of [
      [`${host.origin}/`, "the client_id URL must have a path"],
      [`${host.origin}/c.json?x=1`, "the client_id URL must not contain a query"],
      [`${host.origin}/c.json#x`, "the client_id URL must not contain a fragment"],
      [`https://user@127.0.0.1/c.json`, "the client_id URL must not contain credentials (user@host)"],
    ] as const) {
      const r = await open(id);
      expect(r.status).toBe(400);
      expect(errorPageOf(r.html)).toBe(`The client's metadata document cannot be used: ${reason}.`);
    }
  });

  it("a redirect_uri the document does not list", async () => {
    const { url } = hosted();
    const r = await open(url, "https://attacker.example/cb");
    expect(r.status).toBe(400);
    expect(r.location).toBeUndefined();
    expect(errorPageOf(r.html)).toBe("The redirect_uri is missing or is not registered for this client.");
  });
});

describe("SSRF: special-use addresses without TOOLGATE_SCAN_ALLOW_PRIVATE", () => {
  let strict: Harness;
  beforeAll(async () => {
    strict = await startToolgate({ env: { TOOLGATE_OUTBOUND_CA_FILE: cert.certFile } });
  });
  afterAll(async () => strict?.close());

  it.each([
    [() => hosted().url, "the address 127.0.0.1 is not allowed (private network); set TOOLGATE_SCAN_ALLOW_PRIVATE=1 to allow"],
    [() => "https://169.254.169.254/latest", "the address 169.254.169.254 is not allowed (private network); set TOOLGATE_SCAN_ALLOW_PRIVATE=1 to allow"],
    [() => "https://10.0.0.1/c.json", "the address 10.0.0.1 is not allowed (private network); set TOOLGATE_SCAN_ALLOW_PRIVATE=1 to allow"],
    [() => hosted().url.replace("127.0.0.1", "localhost"), "the address of localhost is not allowed (private network); set TOOLGATE_SCAN_ALLOW_PRIVATE=1 to allow"],
    [() => hosted().url.replace("127.0.0.1", "[::7f00:1]"), "the address ::7f00:1 is not allowed (an IPv4 address in IPv6 form; use the IPv4 address)"],
    [() => "https://[::a9fe:a9fe]/latest", "the address ::a9fe:a9fe is not allowed (an IPv4 address in IPv6 form; use the IPv4 address)"],
    [() => hosted().url.replace("127.0.0.1", "[::ffff:7f00:1]"), "the address ::ffff:7f00:1 is not allowed (an IPv4 address in IPv6 form; use the IPv4 address)"],
    [() => "https://[::ffff:808:808]/c.json", "the address ::ffff:808:808 is not allowed (an IPv4 address in IPv6 form; use the IPv4 address)"],
  ])("refuses without connecting (%#)", async (idOf, reason) => {
    const id = idOf();
    const before = [...host.hits.values()].reduce((x, y) => x + y, 0);
    const url = authorizeUrl(id, undefined, undefined, strict.config.publicUrl);
    const r = await browser(strict.config.publicUrl, strict.url).open(url);
    expect(r.status).toBe(400);
    expect(errorPageOf(r.html)).toBe(`The client's metadata document cannot be used: the metadata document cannot be fetched: ${reason}.`);
    expect([...host.hits.values()].reduce((x, y) => x + y, 0)).toBe(before);
  });
});

describe("caching", () => {
  it("reuses a document while its max-age lasts; no-store means every time", async () => {
    const cached = hosted({}, { headers: { "cache-control": "max-age=600" } });
    await open(cached.url);
    await open(cached.url);
    expect(host.hitsOf(cached.path)).toBe(1);
    const uncached = hosted({}, { headers: { "cache-control": "no-store" } });
    await open(uncached.url);
    await open(uncached.url);
    expect(host.hitsOf(uncached.path)).toBe(2);
  });

  it("never caches a failure", async () => {
    const path = "/flaky/c.json";
    const url = host.origin + path;
    host.serve(path, { status: 503, body: "" });
    expect((await open(url)).status).toBe(400);
    host.serve(path, { body: doc(url), headers: { "cache-control": "max-age=600" } });
    expect((await open(url)).status).toBe(200);
    expect(host.hitsOf(path)).toBe(2);
  });
});

describe("fetches per requester address (TOOLGATE_CIMD_FETCH_RATE_LIMIT)", () => {
  let limited: Harness;
  let resource: string;
  beforeAll(async () => {
    limited = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1", TOOLGATE_OUTBOUND_CA_FILE: cert.certFile, TOOLGATE_CIMD_FETCH_RATE_LIMIT: "3" } });
    resource = (await setUpSignIn(limited.url, limited.adminToken, { name: "Limited", scopes: ["docs:read"], users: [USER], redirectUri: REDIRECT })).resource;
  });
  afterAll(async () => limited?.close());
  /** The authorization page for `clientId`, asked of the instance at `base` (default: `limited`). */
  const openLimited = (clientId: string, base = limited.url) => {
    const url = authorizeUrl(clientId, undefined, undefined, limited.config.publicUrl);
    url.searchParams.set("resource", resource);
    return browser(limited.config.publicUrl, base).open(url);
  };

  it("answers 429 with Retry-After once an address caused its fetches this minute, fetching nothing; a fresh document is still reused", async () => {
    const fresh = hosted({}, { headers: { "cache-control": "max-age=600" } });
    expect((await openLimited(fresh.url)).status).toBe(200); // fetch 1
    host.serve("/limited/missing-1.json", { status: 404, body: "" });
    host.serve("/limited/missing-2.json", { status: 404, body: "" });
    expect((await openLimited(`${host.origin}/limited/missing-1.json`)).status).toBe(400); // fetch 2: failures count too
    expect((await openLimited(`${host.origin}/limited/missing-2.json`)).status).toBe(400); // fetch 3
    const before = [...host.hits.values()].reduce((x, y) => x + y, 0);
    const refused = await openLimited(hosted().url);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(refused.location).toBeUndefined();
    expect(errorPageOf(refused.html)).toMatch(/^The client's metadata document cannot be used: too many metadata documents were fetched for requests from your address; try again in \d+ s\.$/);
    expect([...host.hits.values()].reduce((x, y) => x + y, 0)).toBe(before); // nothing fetched
    // A document still fresh needs no fetch: its client signs in as before.
    expect((await openLimited(fresh.url)).status).toBe(200);
    expect(host.hitsOf(fresh.path)).toBe(1);
    // The count is in the database: another instance on it (or this one restarted) refuses too,
    // fetching nothing; another installation (its own database) is not affected.
    const other = await startSecondApp(limited);
    try {
      expect((await openLimited(hosted().url, other.url)).status).toBe(429);
      expect([...host.hits.values()].reduce((x, y) => x + y, 0)).toBe(before);
    } finally {
      await other.close();
    }
    expect((await open(hosted().url)).status).toBe(200);
  });
});

describe("a changed redirect set", () => {
  it("is staged: the approved set stays in force until an administrator approves the new one", async () => {
    const { url, path } = hosted({}, { headers: { "cache-control": "no-store" } });
    // First authorization: the document's set is approved; it connects to the server.
    const bw = browser(h.config.publicUrl, h.url);
    const login = await bw.open(authorizeUrl(url));
    const consent = await bw.submit(login, USER);
    expect((await bw.submit(consent, { decision: "allow" })).status).toBe(302);

    const moved = "https://app.example.test/callback";
    host.serve(path, { headers: { "cache-control": "no-store" }, body: doc(url, { redirect_uris: [moved] }) });
    const refused = await open(url, moved);
    expect(refused.status).toBe(400);
    expect(errorPageOf(refused.html)).toBe("The redirect_uri is missing or is not registered for this client.");
    expect((await open(url)).status).toBe(200); // the approved loopback URI still works
    const row = await h.db.client.findUniqueOrThrow({ where: { clientId: url } });
    expect(row.stagedRedirectUris).toEqual([moved]);
    expect(row.redirectUris).toEqual([REDIRECT]);

    const approved = await h.admin("PUT", `/svc/resource-servers/${a.serverId}/clients/${encodeURIComponent(url)}/approve-redirects`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ client_id: url, redirect_uris: [moved], staged_redirect_uris: null, previous_redirect_uris: [REDIRECT] });
    expect((await open(url, moved)).status).toBe(200);
  });
});
