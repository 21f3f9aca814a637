// Client secret rotation (issue 10 item 5) over real HTTP, oauth4webapi as the client:
// POST /svc/resource-servers/:id/clients/:client_id/rotate-secret and the GraphQL mutation
// rotateClientSecret. Without grace the old secret is refused from the answer on (also when the
// token endpoint had it in its credential cache); with grace_seconds it keeps working until exactly
// then (injected clock), the new one at once. Exact error bodies, workspace isolation, the secret
// never in the logs; approveClientRedirects through GraphQL. On PostgreSQL a spawned second server
// process sees the rotation (no grace: at once; with grace: once the grace is over).
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as oauth from "oauth4webapi";
import pg from "pg";
import { hashSecret } from "../src/shared/crypto";
import { ManualClock } from "../src/shared/clock";
import { startToolgate, type Harness } from "./helpers/harness";
import { createClient, createServer, insecure, type ClientFixture, type ServerFixture } from "./helpers/oauth-fixtures";
import { insertClient } from "./helpers/fixtures";
import { startSecondInstance, type RunningServer } from "./helpers/process";
import { eventually } from "./helpers/eventually";
import { gql } from "./graphql/client";

const onPostgres = !!process.env.TEST_DATABASE_URL;
const clock = new ManualClock(new Date("2026-07-01T09:00:00.000Z"));
const logs: Record<string, unknown>[] = [];
let h: Harness;
let server: ServerFixture;
let as: oauth.AuthorizationServer;

beforeAll(async () => {
  h = await startToolgate({ clock, logs });
  server = await createServer(h);
  as = { issuer: h.config.publicUrl, token_endpoint: `${h.url}/oauth/token`, revocation_endpoint: `${h.url}/oauth/revoke` };
});
afterAll(async () => h?.close());

const INVALID_CLIENT = { error: "invalid_client", error_description: "client authentication failed" };
const GRACE_ERROR = { error: "grace_seconds: must be a whole number of seconds from 0 to 86400" };

/** Every secret this file has seen, for the log check at the end. */
const seenSecrets: string[] = [];

const rotatePath = (clientId: string, serverId = server.id) => `/svc/resource-servers/${serverId}/clients/${encodeURIComponent(clientId)}/rotate-secret`;

async function rotate(clientId: string, body?: unknown, serverId = server.id, token = h.adminToken) {
  const r = await h.request("POST", rotatePath(clientId, serverId), { token, json: body });
  if (r.status === 200) seenSecrets.push(r.body.client_secret);
  return r;
}

async function newClient(): Promise<ClientFixture> {
  const c = await createClient(h, server.id);
  seenSecrets.push(c.client_secret);
  return c;
}

/**
 * client_credentials through oauth4webapi with this secret at `authServer`'s token endpoint:
 * "ok", or the error answer's status and body.
 */
async function tokenWith(clientId: string, secret: string, method: "basic" | "post" = "basic", authServer = as): Promise<"ok" | { status: number; body: unknown }> {
  const c: oauth.Client = { client_id: clientId };
  const auth = method === "post" ? oauth.ClientSecretPost(secret) : oauth.ClientSecretBasic(secret);
  try {
    const t = await oauth.processClientCredentialsResponse(authServer, c, await oauth.clientCredentialsGrantRequest(authServer, c, auth, {}, insecure));
    expect(t.token_type).toBe("bearer");
    return "ok";
  } catch (e) {
    // RFC 6749 §5.2: a 401 carries a Basic challenge, which oauth4webapi surfaces before the body.
    if (e instanceof oauth.WWWAuthenticateChallengeError) return { status: e.status, body: await e.response.json() };
    if (e instanceof oauth.ResponseBodyError) return { status: e.status, body: e.cause };
    throw e;
  }
}

const refused = { status: 401, body: INVALID_CLIENT };

describe("REST: POST .../clients/:client_id/rotate-secret", () => {
  it("without grace: answers the new secret once; the old one is refused at once, even when it was just cached", async () => {
    const c = await newClient();
    expect(await tokenWith(c.client_id, c.client_secret)).toBe("ok"); // now in the credential cache
    expect(await tokenWith(c.client_id, c.client_secret, "post")).toBe("ok");
    const r = await rotate(c.client_id);
    expect(r.status).toBe(200);
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.body).toMatchObject({
      client_id: c.client_id,
      status: "approved",
      client_secret_expires_at: 0,
      rotated_at: clock.now().toISOString(),
      previous_secret_expires_at: null,
    });
    expect(r.body.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 bits, base64url
    expect(r.body.client_secret).not.toBe(c.client_secret);
    expect(await tokenWith(c.client_id, c.client_secret)).toEqual(refused);
    expect(await tokenWith(c.client_id, c.client_secret, "post")).toEqual(refused);
    expect(await tokenWith(c.client_id, r.body.client_secret)).toBe("ok");
    expect(await tokenWith(c.client_id, r.body.client_secret, "post")).toBe("ok");
    // Stored as the peppered hash only; no previous hash is kept without a grace.
    const row = await h.db.client.findUnique({ where: { clientId: c.client_id } });
    expect(row).toMatchObject({ secretHash: hashSecret(h.services.secretPepper, r.body.client_secret), previousSecretHash: null, previousSecretExpiresAt: null });
    // The secret is not readable again.
    const read = await h.admin("GET", `/svc/resource-servers/${server.id}/clients/${c.client_id}`);
    expect(JSON.stringify(read.body)).not.toContain(r.body.client_secret);
  });

  it("with grace_seconds: the old secret works until exactly then, the new one at once (token and revocation endpoints)", async () => {
    const c = await newClient();
    expect(await tokenWith(c.client_id, c.client_secret)).toBe("ok");
    const rotatedAt = clock.now();
    const r = await rotate(c.client_id, { grace_seconds: 300 });
    expect(r.status).toBe(200);
    const until = new Date(rotatedAt.getTime() + 300_000);
    expect(r.body).toMatchObject({ rotated_at: rotatedAt.toISOString(), previous_secret_expires_at: until.toISOString() });
    const fresh = r.body.client_secret as string;
    expect(await tokenWith(c.client_id, fresh)).toBe("ok");
    expect(await tokenWith(c.client_id, c.client_secret)).toBe("ok");
    expect(await tokenWith(c.client_id, c.client_secret, "post")).toBe("ok");
    // RFC 7009 revocation authenticates the client the same way.
    const t = await oauth.processClientCredentialsResponse(as, { client_id: c.client_id }, await oauth.clientCredentialsGrantRequest(as, { client_id: c.client_id }, oauth.ClientSecretBasic(c.client_secret), {}, insecure));
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, { client_id: c.client_id }, oauth.ClientSecretBasic(c.client_secret), t.access_token, insecure));
    clock.set(new Date(until.getTime() - 1));
    expect(await tokenWith(c.client_id, c.client_secret)).toBe("ok");
    clock.set(until);
    expect(await tokenWith(c.client_id, c.client_secret)).toEqual(refused);
    expect(await tokenWith(c.client_id, c.client_secret, "post")).toEqual(refused);
    const revokeAfter = await h.request("POST", "/oauth/revoke", { basic: [c.client_id, c.client_secret], form: { token: t.access_token } });
    expect({ status: revokeAfter.status, body: revokeAfter.body }).toEqual(refused);
    expect(await tokenWith(c.client_id, fresh)).toBe("ok");
  });

  it("a rotation during a grace ends the older secret at once; only the one it replaces keeps a grace", async () => {
    const c = await newClient();
    const second = (await rotate(c.client_id, { grace_seconds: 3600 })).body.client_secret as string;
    expect(await tokenWith(c.client_id, c.client_secret)).toBe("ok");
    const third = await rotate(c.client_id, { grace_seconds: 60 });
    expect(await tokenWith(c.client_id, c.client_secret)).toEqual(refused);
    expect(await tokenWith(c.client_id, second)).toBe("ok");
    expect(await tokenWith(c.client_id, third.body.client_secret)).toBe("ok");
    const fourth = await rotate(c.client_id, { grace_seconds: 0 });
    expect(fourth.body.previous_secret_expires_at).toBeNull();
    expect(await tokenWith(c.client_id, second)).toEqual(refused);
    expect(await tokenWith(c.client_id, third.body.client_secret)).toEqual(refused);
    expect(await tokenWith(c.client_id, fourth.body.client_secret)).toBe("ok");
  });

  it("parallel rotations of one client: each answers the new secret or a 409 that changed nothing; the last stored secret works", async () => {
    const c = await newClient();
    const answers = await Promise.all(Array.from({ length: 8 }, () => rotate(c.client_id, { grace_seconds: 60 })));
    const won = answers.filter((r) => r.status === 200);
    for (const r of answers.filter((r) => r.status !== 200)) {
      expect({ status: r.status, body: r.body }).toEqual({
        status: 409,
        body: { error: "the client's secret was rotated by another request at the same time; nothing changed, rotate again" },
      });
    }
    expect(won.length).toBeGreaterThan(0);
    const row = await h.db.client.findUniqueOrThrow({ where: { clientId: c.client_id } });
    const secrets = [c.client_secret, ...won.map((r) => r.body.client_secret as string)];
    const current = secrets.find((s) => hashSecret(h.services.secretPepper, s) === row.secretHash);
    const previous = secrets.find((s) => hashSecret(h.services.secretPepper, s) === row.previousSecretHash);
    expect(current).toBeDefined();
    // Successful rotations form one chain: the graced secret is the one the last winner replaced,
    // the original only when there was a single winner (two winners from the same secret would
    // leave the original graced and one answered secret that never worked).
    expect(previous).toBe(won.length === 1 ? c.client_secret : secrets.find((s) => s === previous && s !== c.client_secret));
    expect(await tokenWith(c.client_id, current!)).toBe("ok");
    expect(await tokenWith(c.client_id, previous!)).toBe("ok");
  });

  it.runIf(onPostgres)("two rotations that read the same secret: one wins, the other answers 409 and changes nothing (PostgreSQL)", async () => {
    const c = await newClient();
    // Hold the client's row so both rotations read the same secret and then queue on their write.
    const locker = new pg.Client({ connectionString: h.config.database.url });
    await locker.connect();
    try {
      await locker.query("BEGIN");
      await locker.query(`SELECT 1 FROM "Client" WHERE "clientId" = $1 FOR UPDATE`, [c.client_id]);
      const racing = [rotate(c.client_id, { grace_seconds: 60 }), rotate(c.client_id, { grace_seconds: 60 })];
      const waiting = async () =>
        Number((await locker.query("SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()")).rows[0].n);
      await eventually(async () => (await waiting()) >= 2, "both rotations wait for the row");
      await locker.query("COMMIT");
      const answers = await Promise.all(racing);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      const lost = answers.find((r) => r.status === 409)!;
      expect(lost.body).toEqual({ error: "the client's secret was rotated by another request at the same time; nothing changed, rotate again" });
      const winner = answers.find((r) => r.status === 200)!;
      expect(await tokenWith(c.client_id, winner.body.client_secret)).toBe("ok");
      expect(await tokenWith(c.client_id, c.client_secret)).toBe("ok"); // graced by the winner
    } finally {
      await locker.end();
    }
  });

  it("rotates a client registered through the dashboard form (POST /svc/clientms/clients)", async () => {
    const created = await h.admin("POST", "/svc/clientms/clients", { client_name: "Dashboard m2m", client_type: "m2m", resource_server_id: server.id });
    expect(created.status).toBe(201);
    seenSecrets.push(created.body.client_secret);
    expect(await tokenWith(created.body.client_id, created.body.client_secret)).toBe("ok");
    const r = await rotate(created.body.client_id);
    expect(r.status).toBe(200);
    expect(await tokenWith(created.body.client_id, created.body.client_secret)).toEqual(refused);
    expect(await tokenWith(created.body.client_id, r.body.client_secret)).toBe("ok");
  });

  it("refuses a bad grace_seconds with 400 naming the field, and changes nothing", async () => {
    const c = await newClient();
    for (const bad of [-1, 86_401, 1.5, "60", null, true]) {
      const r = await rotate(c.client_id, { grace_seconds: bad });
      expect({ status: r.status, body: r.body }).toEqual({ status: 400, body: GRACE_ERROR });
    }
    const unknown = await rotate(c.client_id, { grace: 60 });
    expect({ status: unknown.status, body: unknown.body }).toEqual({ status: 400, body: { error: "body: unknown field(s) grace" } });
    expect((await rotate(c.client_id, { grace_seconds: 86_400 })).status).toBe(200); // the bound itself is fine
    const array = await rotate(c.client_id, []);
    expect(array.status).toBe(400);
    expect(await tokenWith(c.client_id, c.client_secret)).toBe("ok"); // still in its grace
  });

  it("404 for an unknown client, another server's client and another workspace's; 409 for a revoked or public client", async () => {
    const c = await newClient();
    const notFound = { status: 404, body: { error: "client not found" } };
    const unknown = await rotate("tgc_unknown");
    expect({ status: unknown.status, body: unknown.body }).toEqual(notFound);
    const otherServer = await createServer(h);
    const viaOther = await rotate(c.client_id, undefined, otherServer.id);
    expect({ status: viaOther.status, body: viaOther.body }).toEqual(notFound);

    // Another workspace's owner cannot rotate ours, even through its own server id; ours cannot rotate theirs.
    const other = await h.createWorkspace("rotation-other@example.test");
    const theirServer = await createServer(h, {}, other.token);
    const theirs = await createClient(h, theirServer.id, {}, other.token);
    seenSecrets.push(theirs.client_secret);
    for (const [clientId, serverId, token, error] of [
      [c.client_id, server.id, other.token, "resource server not found"],
      [c.client_id, theirServer.id, other.token, "client not found"],
      [theirs.client_id, theirServer.id, h.adminToken, "resource server not found"],
      [theirs.client_id, server.id, h.adminToken, "client not found"],
    ] as const) {
      const r = await rotate(clientId, { grace_seconds: 10 }, serverId, token);
      expect({ status: r.status, body: r.body }).toEqual({ status: 404, body: { error } });
    }
    expect(await tokenWith(c.client_id, c.client_secret)).toBe("ok");
    expect(await tokenWith(theirs.client_id, theirs.client_secret)).toBe("ok");

    expect((await h.admin("POST", `/svc/resource-servers/${server.id}/clients/${c.client_id}/revoke`)).status).toBe(200);
    const revoked = await rotate(c.client_id);
    expect({ status: revoked.status, body: revoked.body }).toEqual({ status: 409, body: { error: "client is revoked" } });

    const pub = await insertClient(h, { tenantId: h.workspaceId, resourceServerId: server.id, kind: "cli", grantTypes: ["authorization_code"] });
    await h.db.client.update({ where: { id: pub.id }, data: { tokenEndpointAuthMethod: "none" } });
    const publicAnswer = await rotate(pub.clientId);
    expect({ status: publicAnswer.status, body: publicAnswer.body }).toEqual({
      status: 409,
      body: { error: "client is public (token_endpoint_auth_method none): it has no secret to rotate" },
    });
  });

  it("needs an owner or admin of the workspace", async () => {
    const c = await newClient();
    const user = await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: "rotation-member@example.test", username: "rotation-member", password: "member password 1" });
    expect(user.status).toBe(201);
    const memberToken = await h.login("rotation-member@example.test", "member password 1", h.workspaceId);
    const r = await rotate(c.client_id, undefined, server.id, memberToken);
    expect(r.status).toBe(403);
    const none = await h.request("POST", rotatePath(c.client_id));
    expect(none.status).toBe(401);
    expect(await tokenWith(c.client_id, c.client_secret)).toBe("ok");
  });
});

describe("GraphQL", () => {
  const ROTATE = `mutation Rotate($rs: ID!, $client: String!, $grace: Int) {
    rotateClientSecret(resourceServerId: $rs, clientId: $client, graceSeconds: $grace) {
      clientSecret rotatedAt previousSecretExpiresAt client { clientId status }
    }
  }`;

  it("rotateClientSecret: the same rotation as REST, the new secret in the payload only", async () => {
    const c = await newClient();
    const at = clock.now();
    const r = await gql<any, any>(h, ROTATE, { rs: server.id, client: c.client_id, grace: 120 });
    expect(r.errors).toBeUndefined();
    const p = r.data.rotateClientSecret;
    seenSecrets.push(p.clientSecret);
    expect(p).toMatchObject({
      rotatedAt: at.toISOString(),
      previousSecretExpiresAt: new Date(at.getTime() + 120_000).toISOString(),
      client: { clientId: c.client_id, status: "approved" },
    });
    expect(p.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await tokenWith(c.client_id, p.clientSecret)).toBe("ok");
    expect(await tokenWith(c.client_id, c.client_secret)).toBe("ok");
    clock.advance(120_000);
    expect(await tokenWith(c.client_id, c.client_secret)).toEqual(refused);

    const noGrace = await gql<any, any>(h, ROTATE, { rs: server.id, client: c.client_id });
    seenSecrets.push(noGrace.data.rotateClientSecret.clientSecret);
    expect(noGrace.data.rotateClientSecret.previousSecretExpiresAt).toBeNull();
    expect(await tokenWith(c.client_id, p.clientSecret)).toEqual(refused);
  });

  it("rotateClientSecret: a bad graceSeconds is BAD_USER_INPUT naming the argument; another workspace's client is NOT_FOUND", async () => {
    const c = await newClient();
    for (const grace of [-1, 86_401]) {
      const r = await gql<any, any>(h, ROTATE, { rs: server.id, client: c.client_id, grace });
      expect(r.data).toBeNull();
      expect(r.errors?.map((e) => ({ message: e.message, code: e.extensions?.code }))).toEqual([
        { message: "graceSeconds: must be a whole number of seconds from 0 to 86400", code: "BAD_USER_INPUT" },
      ]);
    }
    const other = await h.createWorkspace("rotation-graph@example.test");
    const r = await gql<any, any>(h, ROTATE, { rs: server.id, client: c.client_id }, { token: other.token });
    expect(r.errors?.map((e) => ({ message: e.message, code: e.extensions?.code }))).toEqual([{ message: "resource server not found", code: "NOT_FOUND" }]);
    expect(await tokenWith(c.client_id, c.client_secret)).toBe("ok");
  });

  it("approveClientRedirects applies a staged redirect-URI change (PUT .../approve-redirects), once", async () => {
    const APPROVE = `mutation Approve($rs: ID!, $client: String!) {
      approveClientRedirects(resourceServerId: $rs, clientId: $client) { previousRedirectUris client { redirectUris stagedRedirectUris } }
    }`;
    const cimd = await insertClient(h, {
      tenantId: h.workspaceId,
      resourceServerId: server.id,
      clientId: "https://app.example.test/oauth/client.json",
      kind: "agent",
      registrationMode: "cimd",
      redirectUris: ["https://app.example.test/old"],
      stagedRedirectUris: ["https://app.example.test/new"],
    });
    const other = await h.createWorkspace("approve-graph@example.test");
    const foreign = await gql<any, any>(h, APPROVE, { rs: server.id, client: cimd.clientId }, { token: other.token });
    expect(foreign.errors?.map((e) => ({ message: e.message, code: e.extensions?.code }))).toEqual([{ message: "resource server not found", code: "NOT_FOUND" }]);
    const r = await gql<any, any>(h, APPROVE, { rs: server.id, client: cimd.clientId });
    expect(r.errors).toBeUndefined();
    expect(r.data.approveClientRedirects).toEqual({
      previousRedirectUris: ["https://app.example.test/old"],
      client: { redirectUris: ["https://app.example.test/new"], stagedRedirectUris: null },
    });
    const again = await gql<any, any>(h, APPROVE, { rs: server.id, client: cimd.clientId });
    expect(again.errors?.map((e) => ({ message: e.message, code: e.extensions?.code }))).toEqual([
      { message: "no redirect-URI change is staged for this client; nothing to approve", code: "CONFLICT" },
    ]);
  });
});

describe("log hygiene", () => {
  it("no secret, old or new, and no secret hash ever reaches the log", async () => {
    expect(seenSecrets.length).toBeGreaterThan(10);
    expect(logs.length).toBeGreaterThan(0);
    const text = JSON.stringify(logs);
    for (const s of seenSecrets) {
      expect(text).not.toContain(s);
      expect(text).not.toContain(hashSecret(h.services.secretPepper, s));
    }
  });
});

// ---------------------------------------------------------------- a second instance (PostgreSQL)

describe.runIf(onPostgres)("a second server process on the same PostgreSQL database", () => {
  // Spawned servers compile TypeScript at start: give them room on a busy machine.
  vi.setConfig({ testTimeout: 120_000 });
  let a: Harness;
  let b: RunningServer;
  let atB: oauth.AuthorizationServer;
  let rs: ServerFixture;

  beforeAll(async () => {
    a = await startToolgate(); // the real clock: the spawned process has no other
    b = await startSecondInstance(a);
    atB = { issuer: a.config.publicUrl, token_endpoint: `${b.url}/oauth/token` };
    rs = await createServer(a);
  }, 120_000);
  afterAll(async () => {
    await b?.stop();
    await a?.close();
  });

  const tokenAtB = (clientId: string, secret: string) => tokenWith(clientId, secret, "basic", atB);

  it("without grace: B refuses the old secret as soon as the rotation commits on A", async () => {
    const c = await createClient(a, rs.id);
    expect(await tokenAtB(c.client_id, c.client_secret)).toBe("ok"); // cached on B
    const r = await a.admin("POST", `/svc/resource-servers/${rs.id}/clients/${c.client_id}/rotate-secret`);
    expect(r.status).toBe(200);
    await eventually(async () => (await tokenAtB(c.client_id, r.body.client_secret)) === "ok", "the new secret works on B", 10_000);
    expect(await tokenAtB(c.client_id, c.client_secret)).toEqual(refused);
  });

  it("with grace: B accepts both until the grace ends, then only the new one", async () => {
    const c = await createClient(a, rs.id);
    expect(await tokenAtB(c.client_id, c.client_secret)).toBe("ok");
    const r = await a.admin("POST", `/svc/resource-servers/${rs.id}/clients/${c.client_id}/rotate-secret`, { grace_seconds: 5 });
    expect(r.status).toBe(200);
    const until = Date.parse(r.body.previous_secret_expires_at);
    // The new secret working on B proves B reloaded the entry; the old one still works there. (On a
    // machine stalled past the grace, the answer must then be the refusal: judged by when it was asked.)
    await eventually(async () => (await tokenAtB(c.client_id, r.body.client_secret)) === "ok", "the new secret works on B", 10_000);
    const asked = Date.now();
    const old = await tokenAtB(c.client_id, c.client_secret);
    if (Date.now() < until) expect(old).toBe("ok");
    else if (asked >= until) expect(old).toEqual(refused);
    await eventually(async () => (await tokenAtB(c.client_id, c.client_secret)) !== "ok", "the grace ends on B", 20_000);
    expect(Date.now()).toBeGreaterThanOrEqual(until);
    expect(await tokenAtB(c.client_id, c.client_secret)).toEqual(refused);
    expect(await tokenAtB(c.client_id, r.body.client_secret)).toBe("ok");
  });
});
