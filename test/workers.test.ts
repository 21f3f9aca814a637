// TOOLGATE_WORKERS (src/cluster.ts): several server processes on one port, PostgreSQL only. Each
// worker answers from its own caches; a revocation answered by one worker must reach the others
// through LISTEN/NOTIFY as between instances. Which worker answered a request is read from the
// request log (each line names its worker; each request carries its own X-Request-Id).
import { randomBytes, randomUUID } from "node:crypto";
import { request as httpRequest } from "node:http";
import { afterAll, describe, expect, it, vi } from "vitest";
import { ConfigError, loadConfig } from "../src/config";
import { createTestDatabase, type TestDatabase } from "./helpers/database";
import { startServerProcess, type RunningServer } from "./helpers/process";

vi.setConfig({ testTimeout: 180_000 });

const pg = process.env.TEST_DATABASE_URL !== undefined;
const dbs: TestDatabase[] = [];
const servers: RunningServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
  for (const d of dbs) await d.drop();
});

interface Answer {
  status: number;
  body: any;
  requestId: string;
}

/** One request on its own connection (the cluster hands each new connection to the next worker). */
function call(base: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const requestId = randomUUID();
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method: "POST", agent: false, headers: { ...headers, "x-request-id": requestId, ...(body ? { "content-length": String(Buffer.byteLength(body)) } : {}) } }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined, requestId }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** The worker that answered `requestId`, from the server's request log (written asynchronously: polled, bounded). */
async function workerOf(server: RunningServer, requestId: string): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const line = server
      .output()
      .split("\n")
      .find((l) => l.includes(requestId) && l.includes('"msg":"request"'));
    if (line) return JSON.parse(line).worker as number;
    if (Date.now() > deadline) throw new Error(`no request line for ${requestId}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** GET /metrics on its own connection: the text, and which worker answered. */
function scrape(base: string, token: string): Promise<{ status: number; text: string; requestId: string }> {
  const requestId = randomUUID();
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}/metrics`, { agent: false, headers: { authorization: `Bearer ${token}`, "x-request-id": requestId } }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode!, text, requestId }));
    });
    req.on("error", reject);
    req.end();
  });
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
const FORM = "application/x-www-form-urlencoded";

/** A server of 2 workers on a fresh PostgreSQL database, a resource server and an m2m client of it. */
async function twoWorkersWithAClient(env: Record<string, string>) {
  const db = await createTestDatabase();
  dbs.push(db);
  const password = "workers-test-password";
  const server = await startServerProcess({
    DATABASE_URL: db.url,
    TOOLGATE_DATA_DIR: db.dataDir,
    TOOLGATE_MASTER_KEY: randomBytes(32).toString("hex"),
    TOOLGATE_ADMIN_EMAIL: "owner@workers.test",
    TOOLGATE_ADMIN_PASSWORD: password,
    TOOLGATE_WORKERS: "2",
    TOOLGATE_LOG_LEVEL: "info",
    ...env,
  });
  servers.push(server);
  const login = await call(server.url, "/svc/uflow/auth/login", { "content-type": "application/json" }, JSON.stringify({ email: "owner@workers.test", password }));
  expect(login.status).toBe(200);
  const admin = { authorization: `Bearer ${login.body.access_token}`, "content-type": "application/json" };
  const rs = await call(server.url, "/svc/resource-servers", admin, JSON.stringify({ name: "workers", public_base_url: "https://workers.example.test", protected_base_path: "/mcp", scopes_supported: ["files:read"] }));
  expect(rs.status).toBe(201);
  const client = await call(server.url, `/svc/resource-servers/${rs.body.id}/clients`, admin, JSON.stringify({ client_name: "w", redirect_uris: [], kind: "m2m", allowed_scopes: ["files:read"] }));
  expect(client.status).toBe(201);
  return { server, rs, clientAuth: { authorization: basic(client.body.client_id, client.body.client_secret), "content-type": FORM } };
}

describe("TOOLGATE_WORKERS", () => {
  it("is refused on SQLite, naming the variable and the reason", async () => {
    expect(() => loadConfig({ TOOLGATE_WORKERS: "2" })).toThrow(ConfigError);
    expect(() => loadConfig({ TOOLGATE_WORKERS: "2" })).toThrow(/TOOLGATE_WORKERS: more than one worker needs PostgreSQL/);
    expect(loadConfig({}).workers).toBe(1);
    expect(loadConfig({ TOOLGATE_WORKERS: "1" }).workers).toBe(1);
    expect(() => loadConfig({ TOOLGATE_WORKERS: "0" })).toThrow(/TOOLGATE_WORKERS/);
    const db = await createTestDatabase();
    dbs.push(db);
    // `npm start` stops before opening anything, with the message and exit status 2.
    await expect(startServerProcess({ TOOLGATE_DATA_DIR: db.dataDir, DATABASE_URL: `file:${db.dataDir}/toolgate.db`, TOOLGATE_WORKERS: "2" })).rejects.toThrow(
      /exited with 2:[\s\S]*TOOLGATE_WORKERS: more than one worker needs PostgreSQL/,
    );
  });

  it.runIf(pg)("runs 2 workers on one port; a revocation answered by one is seen by the other", async () => {
    const { server, rs, clientAuth } = await twoWorkersWithAClient({});
    expect(server.output()).toContain("(database: postgresql, 2 workers)");
    const token = await call(server.url, "/oauth/token", clientAuth, "grant_type=client_credentials&scope=files%3Aread");
    expect(token.status).toBe(200);
    const introspect = () => call(server.url, "/oauth/introspect", { authorization: basic(rs.body.id, rs.body.introspection_secret), "content-type": FORM }, new URLSearchParams({ token: token.body.access_token }).toString());

    // Both workers answer, and both have the token active in their caches.
    const activeIn = new Set<number>();
    for (let i = 0; i < 40 && activeIn.size < 2; i++) {
      const a = await introspect();
      expect(a.body.active).toBe(true);
      activeIn.add(await workerOf(server, a.requestId));
    }
    expect([...activeIn].sort()).toEqual([1, 2]);

    const revoked = await call(server.url, "/oauth/revoke", clientAuth, new URLSearchParams({ token: token.body.access_token }).toString());
    expect(revoked.status).toBe(200);
    const revoker = await workerOf(server, revoked.requestId);

    // The other worker learns it through LISTEN/NOTIFY: polled with a bound, never a fixed wait.
    const deadline = Date.now() + 15_000;
    let otherSaidInactive = false;
    while (!otherSaidInactive) {
      if (Date.now() > deadline) throw new Error("the other worker still answers active 15 s after the revocation");
      const a = await introspect();
      const w = await workerOf(server, a.requestId);
      if (w === revoker) expect(a.body).toEqual({ active: false }); // the revoking worker: at once
      else otherSaidInactive = a.body.active === false;
    }
    // And from then on, every answer from either worker is inactive.
    for (let i = 0; i < 6; i++) expect((await introspect()).body).toEqual({ active: false });
  });

  it.runIf(pg)("GET /metrics answers every worker's figures summed, whichever worker takes the scrape", async () => {
    const metricsToken = randomBytes(24).toString("base64url");
    const { server, clientAuth } = await twoWorkersWithAClient({ TOOLGATE_METRICS_TOKEN: metricsToken });

    // Tokens issued by both workers (each request on its own connection; bounded).
    const issuers = new Set<number>();
    let issued = 0;
    while (issuers.size < 2 || issued < 6) {
      if (issued >= 40) throw new Error("40 tokens and still not issued by both workers");
      const t = await call(server.url, "/oauth/token", clientAuth, "grant_type=client_credentials&scope=files%3Aread");
      expect(t.status).toBe(200);
      issued++;
      issuers.add(await workerOf(server, t.requestId));
    }

    // Every scrape, from either worker, counts every token.
    const scrapedBy = new Set<number>();
    for (let i = 0; i < 40 && scrapedBy.size < 2; i++) {
      const m = await scrape(server.url, metricsToken);
      expect(m.status).toBe(200);
      expect(m.text).toContain(`toolgate_tokens_total{grant_type="client_credentials",outcome="issued"} ${issued}\n`);
      scrapedBy.add(await workerOf(server, m.requestId));
    }
    expect([...scrapedBy].sort()).toEqual([1, 2]);
  });
});
