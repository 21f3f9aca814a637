// GET /metrics: off unless TOOLGATE_METRICS_TOKEN is set, then a bearer-protected Prometheus text
// exposition; each figure is moved by real traffic (HTTP, token endpoint, introspection, caches,
// invalidations, scans) and read back from the scrape, never from the registry object.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as oauth from "oauth4webapi";
import { randomBytes } from "node:crypto";
import { startToolgate, type Harness } from "./helpers/harness";
import { clientCredentials, createClient, createServer, discover, introspect, type ClientFixture, type ServerFixture } from "./helpers/oauth-fixtures";
import { readyServer, register, rescan } from "./helpers/lifecycle-flow";
import { runCli } from "../src/cli/run";
import { boot } from "../src/boot";
import { createApp } from "../src/app";
import { createLogger } from "../src/shared/logger";

vi.setConfig({ testTimeout: 120_000 });
const onPostgres = !!process.env.TEST_DATABASE_URL;
const TOKEN = randomBytes(32).toString("hex");

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Parses the text format (one sample per line: name{l="v",...} value). */
function parse(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

async function scrape(h: { url: string }): Promise<Sample[]> {
  const r = await fetch(`${h.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(r.status).toBe(200);
  return parse(await r.text());
}

/** The sum of `name` over samples whose labels include `labels`. */
function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0);
}

/** How much `name{labels}` moved while `act` ran. */
async function moved(h: { url: string }, name: string, labels: Record<string, string>, act: () => Promise<unknown>): Promise<number> {
  const before = value(await scrape(h), name, labels);
  await act();
  return value(await scrape(h), name, labels) - before;
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;
const form = (h: Harness, path: string, params: Record<string, string>, authorization?: string) =>
  fetch(h.url + path, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", ...(authorization ? { authorization } : {}) }, body: new URLSearchParams(params) });

describe("GET /metrics is off unless TOOLGATE_METRICS_TOKEN is set", () => {
  it("answers 404 like any unknown path", async () => {
    const h = await startToolgate();
    try {
      const r = await h.request("GET", "/metrics");
      expect([r.status, r.body]).toEqual([404, { error: "not found" }]);
    } finally {
      await h.close();
    }
  });

  it("refuses a token shorter than 32 characters at start-up", async () => {
    await expect(startToolgate({ env: { TOOLGATE_METRICS_TOKEN: "short" } })).rejects.toThrow(
      "TOOLGATE_METRICS_TOKEN: must be at least 32 characters (e.g. openssl rand -hex 32)",
    );
  });
});

describe("GET /metrics with a token", () => {
  let h: Harness;
  let as: oauth.AuthorizationServer;
  let server: ServerFixture;
  let client: ClientFixture;
  beforeAll(async () => {
    // A small cache bound (the minimum, 100 entries; negatives a quarter of it) so evictions are reachable.
    h = await startToolgate({ env: { TOOLGATE_METRICS_TOKEN: TOKEN, TOOLGATE_CACHE_MAX_ENTRIES: "100", TOOLGATE_SCAN_ALLOW_PRIVATE: "1" } });
    as = await discover(h);
    server = await createServer(h);
    client = await createClient(h, server.id);
  });
  afterAll(async () => h?.close());

  it("needs the bearer token: exact refusals, then the text format", async () => {
    for (const headers of [{}, { authorization: `Bearer ${TOKEN}x` }, { authorization: `Basic ${TOKEN}` }] as Record<string, string>[]) {
      const r = await h.request("GET", "/metrics", { headers });
      expect([r.status, r.body]).toEqual([401, { error: "missing or invalid metrics token" }]);
      expect(r.headers.get("www-authenticate")).toBe('Bearer realm="toolgate-metrics"');
    }
    const ok = await fetch(`${h.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(ok.headers.get("cache-control")).toBe("no-store");
    const text = await ok.text();
    expect(text).toContain("# TYPE toolgate_http_request_duration_seconds histogram");
    expect(text).toContain("# TYPE toolgate_tokens_total counter");
    expect(text).toContain("toolgate_process_resident_memory_bytes");
  });

  it("counts HTTP requests per route pattern and status, never per raw URL", async () => {
    const name = "toolgate_http_request_duration_seconds_count";
    const route = { method: "GET", route: "/svc/resource-servers/:id", status: "200" };
    expect(await moved(h, name, route, async () => {
      for (let i = 0; i < 3; i++) expect((await h.admin("GET", `/svc/resource-servers/${server.id}`)).status).toBe(200);
    })).toBe(3);
    const unmatched = { method: "GET", route: "unmatched", status: "404" };
    expect(await moved(h, name, unmatched, async () => {
      for (let i = 0; i < 2; i++) expect((await h.request("GET", `/no/such/path/${randomBytes(4).toString("hex")}`)).status).toBe(404);
    })).toBe(2);
    expect(await moved(h, name, { method: "POST", route: "/graphql", status: "200" }, () => h.request("POST", "/graphql", { token: h.adminToken, json: { query: "{ __typename }" } }))).toBe(1);
    const samples = await scrape(h);
    expect(samples.some((s) => Object.values(s.labels).some((v) => v.includes(server.id) || v.includes("/no/such")))).toBe(false);
    // Latency is observed too: the sum of durations moves with the count.
    expect(value(samples, "toolgate_http_request_duration_seconds_sum", route)).toBeGreaterThan(0);
    expect(value(samples, "toolgate_http_request_duration_seconds_bucket", { ...route, le: "+Inf" })).toBe(value(samples, name, route));
  });

  it("counts tokens per grant type and outcome", async () => {
    const name = "toolgate_tokens_total";
    expect(await moved(h, name, { grant_type: "client_credentials", outcome: "issued" }, () => clientCredentials(as, client))).toBe(1);
    expect(
      await moved(h, name, { grant_type: "client_credentials", outcome: "invalid_client" }, async () => {
        expect((await form(h, "/oauth/token", { grant_type: "client_credentials" }, basic(client.client_id, "wrong-secret"))).status).toBe(401);
      }),
    ).toBe(1);
    expect(
      await moved(h, name, { grant_type: "other", outcome: "unsupported_grant_type" }, async () => {
        expect((await form(h, "/oauth/token", { grant_type: `urn:x:${randomBytes(4).toString("hex")}` }, basic(client.client_id, client.client_secret))).status).toBe(400);
      }),
    ).toBe(1);
  });

  it("counts introspection answers: active or not, from cache or after loading", async () => {
    const name = "toolgate_introspections_total";
    const { access_token } = await clientCredentials(as, client);
    const before = await scrape(h);
    expect((await introspect(as, server, access_token)).active).toBe(true);
    expect((await introspect(as, server, access_token)).active).toBe(true);
    const junk = `${randomBytes(16).toString("hex")}.${randomBytes(16).toString("hex")}.x`;
    expect((await introspect(as, server, junk)).active).toBe(false);
    const after = await scrape(h);
    const delta = (labels: Record<string, string>) => value(after, name, labels) - value(before, name, labels);
    expect(delta({ active: "true" })).toBe(2);
    expect(delta({ active: "true", cache: "hit" })).toBeGreaterThanOrEqual(1); // the second answer came from memory
    expect(delta({ active: "false" })).toBe(1);
    expect(delta({})).toBe(3);
  });

  it("reads cache hits, misses, entries and evictions at scrape time", async () => {
    const before = await scrape(h);
    // Unknown client ids: each is a miss remembered as a negative entry; the negative LRU holds 25.
    for (let i = 0; i < 40; i++) {
      expect((await form(h, "/oauth/token", { grant_type: "client_credentials" }, basic(`tgc_${randomBytes(8).toString("hex")}`, "x"))).status).toBe(401);
    }
    await clientCredentials(as, client); // the real client: a hit
    const after = await scrape(h);
    const delta = (n: string) => value(after, n, { cache: "client" }) - value(before, n, { cache: "client" });
    expect(delta("toolgate_cache_misses_total")).toBeGreaterThanOrEqual(40);
    expect(delta("toolgate_cache_evictions_total")).toBeGreaterThanOrEqual(15);
    expect(delta("toolgate_cache_hits_total")).toBeGreaterThanOrEqual(1);
    expect(value(after, "toolgate_cache_entries", { cache: "client" })).toBeGreaterThanOrEqual(25);
    // A write drops the entry it changed: the client's cache sees an invalidation.
    expect(
      await moved(h, "toolgate_cache_invalidations_total", { cache: "client" }, async () => {
        expect((await h.admin("PATCH", `/svc/resource-servers/${server.id}/clients/${client.client_id}`, { client_name: "Renamed" })).status).toBe(200);
      }),
    ).toBeGreaterThanOrEqual(1);
  });

  it("counts scans by outcome", async () => {
    expect(await moved(h, "toolgate_scans_total", { outcome: "success" }, () => readyServer(h))).toBe(1);
    // Nothing listens there: the scan of the MCP server fails.
    const gone = await register(h, "http://127.0.0.1:9");
    expect(await moved(h, "toolgate_scans_total", { outcome: "failed" }, async () => expect((await rescan(h, gone.id)).status).toBe(502))).toBe(1);
  });

  it("counts dynamic client registrations by outcome, and RFC 7592 operations", async () => {
    const name = "toolgate_registrations_total";
    const body = { redirect_uris: ["http://127.0.0.1:33418/cb"], token_endpoint_auth_method: "none", client_name: "Metrics probe" };
    let created: any;
    expect(
      await moved(h, name, { outcome: "created" }, async () => {
        created = await h.request("POST", "/oauth/register", { json: body });
        expect(created.status).toBe(201);
      }),
    ).toBe(1);
    expect(
      await moved(h, name, { outcome: "rejected" }, async () => {
        expect((await h.request("POST", "/oauth/register", { json: { ...body, redirect_uris: ["ftp://nowhere.example.test/"] } })).status).toBe(400);
      }),
    ).toBe(1);
    const configure = created.body.registration_client_uri.replace(h.config.publicUrl, "");
    expect(
      await moved(h, "toolgate_registration_management_total", { operation: "read" }, async () => {
        expect((await h.request("GET", configure, { token: created.body.registration_access_token })).status).toBe(200);
      }),
    ).toBe(1);
  });

  it.runIf(!onPostgres)("counts cache resets when another process (the CLI) writes the SQLite file", async () => {
    const name = "toolgate_cache_resets_total";
    const before = value(await scrape(h), name);
    const env = { DATABASE_URL: h.config.database.url, TOOLGATE_DATA_DIR: h.config.dataDir, TOOLGATE_MASTER_KEY: h.config.masterKey!.toString("hex") };
    expect(await runCli(["keys", "rotate", "--activate-in", "0"], env, { out: () => undefined, err: () => undefined })).toBe(0);
    await h.toolgate.catchUp(); // the SQLite watch checks the file now: no sleep, no poll
    expect(value(await scrape(h), name)).toBeGreaterThan(before);
  });

  it.runIf(onPostgres)("measures invalidation lag between instances on PostgreSQL", async () => {
    const { db, masterKey } = await boot(h.config);
    const other = await createApp({ config: h.config, db, masterKey, logger: createLogger("silent") });
    await other.start();
    try {
      const otherBus = other.services.changes;
      const arrived = otherBus.nextArrival();
      expect((await h.admin("PATCH", `/svc/resource-servers/${server.id}/clients/${client.client_id}`, { client_name: "Lag probe" })).status).toBe(200);
      await arrived;
      // The other instance's own registry: its figures, not ours.
      const text = await other.services.metrics.expose();
      const samples = parse(text.body);
      expect(value(samples, "toolgate_cache_change_sets_received_total")).toBeGreaterThanOrEqual(1);
      expect(value(samples, "toolgate_cache_invalidation_lag_samples_total")).toBeGreaterThanOrEqual(1);
      expect(value(samples, "toolgate_cache_invalidation_lag_seconds_total")).toBeGreaterThanOrEqual(0);
      expect(value(samples, "toolgate_cache_invalidation_lag_seconds")).toBeLessThan(10);
      expect(value(await scrape(h), "toolgate_cache_invalidation_lag_samples_total")).toBe(0); // own writes are applied locally
    } finally {
      await other.close();
      await db.$disconnect();
    }
  });
});
