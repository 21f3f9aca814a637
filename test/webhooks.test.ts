// Webhooks (/svc/exsvc): Standard Webhooks signatures checked by an independent implementation on a
// real loopback receiver, the audit trail as outbox, retries with backoff and jitter, the
// dead-letter list and redelivery, circuit breaking, the outbound guard, test messages, isolation,
// and one attempt per delivery with two instances on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolgate, type Harness } from "./helpers/harness";
import { startWebhookReceiver, type WebhookReceiver } from "./helpers/webhook-receiver";
import { eventually } from "./helpers/eventually";
import { readyServer, type ReadyServer } from "./helpers/lifecycle-flow";
import { ManualClock } from "../src/shared/clock";
import { randomUUID } from "node:crypto";
import { deriveKey, encryptAtRest } from "../src/shared/crypto";
import { boot } from "../src/boot";
import { createApp } from "../src/app";
import { createLogger } from "../src/shared/logger";
import { retryDelayMs, CIRCUIT_FAILURES, CIRCUIT_OPEN_MS } from "../src/modules/integrations";

const onPostgres = !!process.env.TEST_DATABASE_URL;
const FAST = { TOOLGATE_WEBHOOK_MAX_ATTEMPTS: "3", TOOLGATE_WEBHOOK_ALLOW_PRIVATE: "1", TOOLGATE_WEBHOOK_RETRY_BASE_MS: "200", TOOLGATE_WEBHOOK_RETRY_MAX_MS: "400", TOOLGATE_WEBHOOK_TIMEOUT_MS: "300", TOOLGATE_SCAN_ALLOW_PRIVATE: "1" };

async function subscribe(h: Harness, receiver: WebhookReceiver, eventTypes: string[] = ["*"], token = h.adminToken) {
  const r = await h.request("POST", "/svc/exsvc/webhooks", { token, json: { url: receiver.url, event_types: eventTypes, description: "tests" } });
  expect(r.status, r.text).toBe(201);
  receiver.secret = r.body.secret;
  return r.body as { id: string; secret: string };
}

describe("webhooks", () => {
  let h: Harness;
  let receiver: WebhookReceiver;
  let webhook: { id: string; secret: string };

  beforeAll(async () => {
    h = await startToolgate({ env: FAST });
    receiver = await startWebhookReceiver();
    webhook = await subscribe(h, receiver);
  });
  afterAll(async () => {
    await receiver?.close();
    await h?.close();
  });

  it("shows the secret once, keeps it encrypted at rest, and never lists it", async () => {
    expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const got = await h.admin("GET", `/svc/exsvc/webhooks/${webhook.id}`);
    expect(got.status).toBe(200);
    expect(got.text).not.toContain(webhook.secret);
    expect((await h.admin("GET", "/svc/exsvc/webhooks")).text).not.toContain(webhook.secret);
    const row = await h.db.webhookSubscription.findUniqueOrThrow({ where: { id: webhook.id } });
    expect(row.secretEnc).not.toContain(webhook.secret.slice(6));
    expect(row.secretEnc).toMatch(/^v1\./);
  });

  it("delivers an admin write's audit event, signed (verified by the standardwebhooks package)", async () => {
    const role = await h.admin("POST", "/svc/authmgr/roles", { name: "Webhook readers", grants: [] });
    expect(role.status).toBe(201);
    await eventually(async () => receiver.ofType("role.created").length === 1, "role.created delivered");
    const [got] = receiver.ofType("role.created");
    expect(got!.verified).toBe(true);
    expect(got!.id).toMatch(/^msg_[0-9a-f-]{36}$/);
    expect(got!.payload!.data).toMatchObject({ action: "role.created", target: { type: "role", id: role.body.id }, actor: { type: "user", id: h.ownerId }, outcome: "success", workspace_id: h.workspaceId });
    // A tampered body does not verify with the same headers.
    const delivered = async () => (await h.admin("GET", `/svc/exsvc/webhooks/${webhook.id}/deliveries?status=delivered`)).body.items.find((d: any) => d.event_type === "role.created");
    await eventually(async () => !!(await delivered()), "the outcome recorded");
    expect(await delivered()).toMatchObject({ status: "delivered", attempts: 1, message_id: got!.id, last_status: 204 });
  });

  it("delivers drift events and named events of a ready server (secret rotated)", async () => {
    const rs: ReadyServer = await readyServer(h);
    try {
      const rotated = await h.admin("POST", `/svc/resource-servers/${rs.id}/rotate-introspection-secret`);
      expect(rotated.status).toBe(200);
      await eventually(async () => receiver.ofType("drift_event.secret_rotated").length === 1 && receiver.ofType("resource_server.secret_rotated").length === 1, "drift and rotation delivered");
      const drift = receiver.ofType("drift_event.secret_rotated")[0]!.payload!.data;
      expect(drift.drift_event).toMatchObject({ event_type: "secret_rotated", rs_id: rs.id });
      for (const r of receiver.received) expect(r.body).not.toContain(rotated.body.introspection_secret);
    } finally {
      await rs.mcp.close();
    }
  });

  it("lists each event type once (a type that is both an audit action and a connection change too)", async () => {
    const r = await h.admin("GET", "/svc/exsvc/event-types");
    expect(r.status).toBe(200);
    const names: string[] = (r.body.items ?? r.body).map((t: { name: string }) => t.name);
    expect(names).toContain("connection.revoked");
    expect(names.length).toBe(new Set(names).size);
  });

  it("sends a test message on demand", async () => {
    const sent = await h.admin("POST", `/svc/exsvc/webhooks/${webhook.id}/test`);
    expect(sent.status).toBe(202);
    await eventually(async () => receiver.ofType("webhook.test").length === 1, "test message delivered");
    expect(receiver.ofType("webhook.test")[0]!.verified).toBe(true);
  });

  it("retries a failing and a hanging endpoint until it recovers; the receiver's body is never kept", async () => {
    const groupDelivery = () => h.db.webhookDelivery.findFirst({ where: { eventType: "group.created" } });
    receiver.mode = { kind: "fail", status: 500 };
    await h.admin("POST", "/uflow/v2/groups", { name: "retried" });
    await eventually(async () => ((await groupDelivery())?.attempts ?? 0) >= 1, "a failed attempt");
    expect(await groupDelivery()).toMatchObject({ status: "pending", lastStatus: 500, lastError: "the endpoint answered HTTP 500" });
    receiver.mode = { kind: "hang" };
    await eventually(async () => ((await groupDelivery())?.attempts ?? 0) >= 2, "an attempt that hung");
    expect(await groupDelivery()).toMatchObject({ status: "pending", lastStatus: null, lastError: "the endpoint did not answer within 300 ms" });
    receiver.mode = { kind: "ok" };
    await eventually(async () => (await groupDelivery())?.status === "delivered", "delivered after recovery");
    expect(await groupDelivery()).toMatchObject({ status: "delivered", attempts: 3, lastStatus: 204 });
    expect(receiver.ofType("group.created")[0]!.verified).toBe(true);
    const rows = await h.db.webhookDelivery.findMany();
    for (const r of rows) expect(`${r.lastError}`).not.toContain("receiver failure body");
  });

  it("dead-letters after the last attempt, and redelivers by hand with the same message id", async () => {
    receiver.mode = { kind: "fail", status: 503 };
    await h.admin("POST", "/uflow/v2/groups", { name: "dead letter" });
    const deadOne = async () => (await h.admin("GET", "/svc/exsvc/deliveries?status=dead")).body.items.find((d: any) => d.event_type === "group.created");
    await eventually(async () => !!(await deadOne()), "dead-lettered", 15_000);
    const dead = await deadOne();
    expect(dead).toMatchObject({ attempts: 3, last_status: 503, last_error: "the endpoint answered HTTP 503", next_attempt_at: null });
    receiver.mode = { kind: "ok" };
    const again = await h.admin("POST", `/svc/exsvc/deliveries/${dead.id}/redeliver`);
    expect(again.status).toBe(202);
    await eventually(async () => receiver.received.some((r) => r.id === dead.message_id && r.verified), "redelivered");
    const events = await h.admin("GET", `/svc/v1/workspaces/${h.workspaceId}/audit-events?action=webhook.redelivered`);
    expect(events.body.items[0]).toMatchObject({ target: { type: "webhook_delivery", id: dead.id }, actor: { type: "user", id: h.ownerId } });
  });

  it("refuses private and non-https endpoints where private networks are not allowed, at creation and at delivery", async () => {
    const strict = await startToolgate();
    try {
      for (const [url, message] of [
        ["http://127.0.0.1:9/hook", "url: must use https"],
        ["https://127.0.0.1/hook", "url: the address 127.0.0.1 is not allowed (private network); set TOOLGATE_WEBHOOK_ALLOW_PRIVATE=1 to allow"],
        ["https://169.254.169.254/latest", "url: the address 169.254.169.254 is not allowed (private network); set TOOLGATE_WEBHOOK_ALLOW_PRIVATE=1 to allow"],
        ["https://localhost/hook", "url: the address of localhost is not allowed (private network); set TOOLGATE_WEBHOOK_ALLOW_PRIVATE=1 to allow"],
      ]) {
        const r = await strict.admin("POST", "/svc/exsvc/webhooks", { url, event_types: ["*"] });
        expect(r.status, url).toBe(400);
        expect(r.body.error).toBe(message);
      }
      // A saved endpoint whose name now resolves to a private address (DNS rebinding) is refused at delivery.
      const rebound = await startWebhookReceiver();
      try {
        const id = randomUUID();
        const now = new Date();
        await strict.db.webhookSubscription.create({
          data: { id, tenantId: strict.workspaceId, url: rebound.url, eventTypes: ["*"], secretEnc: encryptAtRest(deriveKey(strict.config.masterKey!, "webhook-secrets"), "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0", id), createdAt: now, updatedAt: now },
        });
        await strict.admin("POST", "/uflow/v2/groups", { name: "rebound" });
        await eventually(async () => (await strict.db.webhookDelivery.findFirst({ where: { subscriptionId: id, attempts: { gt: 0 } } })) !== null, "an attempt");
        const d = await strict.db.webhookDelivery.findFirstOrThrow({ where: { subscriptionId: id, attempts: { gt: 0 } } });
        expect(d.lastError).toBe("refused: the address 127.0.0.1 is not allowed (private network); set TOOLGATE_WEBHOOK_ALLOW_PRIVATE=1 to allow");
        expect(rebound.requests).toBe(0);
      } finally {
        await rebound.close();
      }
    } finally {
      await strict.close();
    }
  });

  it("keeps another workspace's webhooks and deliveries out of reach (404)", async () => {
    const other = await h.createWorkspace("webhooks-other@example.test");
    const asOther = (method: string, path: string, json?: unknown) => h.request(method, path, { token: other.token, json });
    expect((await asOther("GET", `/svc/exsvc/webhooks/${webhook.id}`)).status).toBe(404);
    expect((await asOther("PATCH", `/svc/exsvc/webhooks/${webhook.id}`, { status: "disabled" })).status).toBe(404);
    expect((await asOther("POST", `/svc/exsvc/webhooks/${webhook.id}/test`)).status).toBe(404);
    expect((await asOther("GET", `/svc/exsvc/webhooks/${webhook.id}/deliveries`)).status).toBe(404);
    const mine = (await h.admin("GET", "/svc/exsvc/deliveries")).body.items[0];
    expect((await asOther("GET", `/svc/exsvc/deliveries/${mine.id}`)).status).toBe(404);
    expect((await asOther("POST", `/svc/exsvc/deliveries/${mine.id}/redeliver`)).status).toBe(404);
    expect((await asOther("GET", "/svc/exsvc/deliveries")).body.items).toEqual([]);
  });
});

describe("retry schedule and circuit breaking (a manual clock)", () => {
  let h: Harness;
  let receiver: WebhookReceiver;
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    h = await startToolgate({ clock, env: { TOOLGATE_WEBHOOK_ALLOW_PRIVATE: "1", TOOLGATE_WEBHOOK_RETRY_BASE_MS: "1000", TOOLGATE_WEBHOOK_RETRY_MAX_MS: "8000", TOOLGATE_WEBHOOK_WORKER: "0" } });
    receiver = await startWebhookReceiver();
    await subscribe(h, receiver, ["group.*"]);
  });
  afterAll(async () => {
    await receiver?.close();
    await h?.close();
  });

  const dispatcher = () => h.services.integrations.dispatcher;

  it("backs off exponentially with jitter (half fixed, half random), capped", async () => {
    expect(retryDelayMs({ maxAttempts: 8, baseMs: 1000, maxMs: 8000 }, 1, 0, null)).toBe(500);
    expect(retryDelayMs({ maxAttempts: 8, baseMs: 1000, maxMs: 8000 }, 3, 0.999999, null)).toBe(4000);
    expect(retryDelayMs({ maxAttempts: 8, baseMs: 1000, maxMs: 8000 }, 9, 0.5, null)).toBe(6000);
    // Retry-After asks for longer: honoured (within the cap).
    expect(retryDelayMs({ maxAttempts: 8, baseMs: 1000, maxMs: 8000 }, 1, 0, 3000)).toBe(3000);

    receiver.mode = { kind: "fail", status: 500 };
    await h.admin("POST", "/uflow/v2/groups", { name: "schedule" });
    await h.services.integrations.fanout.drain();
    const delivery = () => h.db.webhookDelivery.findFirstOrThrow({ where: { eventType: "group.created" } });
    // Still being attempted: not redeliverable.
    const pending = await h.admin("POST", `/svc/exsvc/deliveries/${(await delivery()).id}/redeliver`);
    expect(pending.status).toBe(409);
    expect(pending.body.error).toBe("the delivery is still being attempted; redeliver it once it is delivered or dead");
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 4; attempt++) {
      expect(await dispatcher().runOnce()).toBe(1);
      const d = await delivery();
      expect(d.attempts).toBe(attempt);
      delays.push(d.nextAttemptAt.getTime() - clock.now().getTime());
      expect(await dispatcher().runOnce()).toBe(0); // not due yet
      clock.set(d.nextAttemptAt);
    }
    const full = [1000, 2000, 4000, 8000];
    delays.forEach((ms, i) => {
      expect(ms).toBeGreaterThanOrEqual(full[i]! / 2);
      expect(ms).toBeLessThanOrEqual(full[i]!);
    });
  });

  it("opens an endpoint's circuit after repeated failures, then lets one probe through", async () => {
    for (let i = 0; i < 3; i++) await h.admin("POST", "/uflow/v2/groups", { name: `circuit ${i}` });
    await h.services.integrations.fanout.drain();
    // Make everything due and fail until the circuit opens (the schedule test already failed 4 times).
    for (let round = 0; round < 3; round++) {
      clock.advance(10_000);
      await dispatcher().runOnce();
    }
    const sub = await h.db.webhookSubscription.findFirstOrThrow();
    expect(sub.consecutiveFailures).toBeGreaterThanOrEqual(CIRCUIT_FAILURES);
    expect(sub.circuitOpenUntil).not.toBeNull();
    const requests = receiver.requests;
    clock.advance(10_000);
    expect(await dispatcher().runOnce()).toBe(0); // open: nothing attempted
    expect(receiver.requests).toBe(requests);
    receiver.mode = { kind: "ok" };
    clock.set(new Date(sub.circuitOpenUntil!.getTime() + 1));
    expect(await dispatcher().runOnce()).toBe(1); // half-open: one probe
    expect((await h.db.webhookSubscription.findFirstOrThrow()).consecutiveFailures).toBe(0);
    expect(await dispatcher().runOnce()).toBeGreaterThan(0); // closed: the rest go
    expect(CIRCUIT_OPEN_MS).toBe(60_000);
  });
});

describe("a lease that runs out while a round is running (a manual clock)", () => {
  it("wakes the next round, which sends the delivery again with the same id", async () => {
    const clock = new ManualClock(new Date());
    // Not a worker: the test starts the dispatcher itself once the rows are set up. No poll: only
    // the schedule may find the delivery again (as on SQLite, where no instance polls).
    const h = await startToolgate({ clock, env: { ...FAST, TOOLGATE_WEBHOOK_WORKER: "0", TOOLGATE_WEBHOOK_POLL_MS: "600000" } });
    const receiver = await startWebhookReceiver();
    try {
      await subscribe(h, receiver, ["group.created"]);
      for (const name of ["sent now", "in flight elsewhere"]) expect((await h.admin("POST", "/uflow/v2/groups", { name })).status).toBe(201);
      await h.services.integrations.fanout.drain();
      const rows = await h.db.webhookDelivery.findMany({ orderBy: { createdAt: "asc" } });
      expect(rows).toHaveLength(2);
      // The second is being sent by an instance that died: its lease ends in 1 s.
      const inFlight = rows.find((r) => r.payload.includes("in flight elsewhere"))!;
      await h.db.webhookDelivery.update({ where: { id: inFlight.id }, data: { status: "sending", lockedUntil: new Date(clock.now().getTime() + 1000) } });
      // While the round sends the first, 5 s pass: the lease has run out when the round ends.
      receiver.onRequest = () => clock.advance(5_000);
      h.services.integrations.dispatcher.start(undefined);
      await eventually(async () => receiver.received.some((r) => r.id === `msg_${inFlight.id}`), "the delivery whose lease ran out during the round sent again", 10_000);
      expect(receiver.received.find((r) => r.id === `msg_${inFlight.id}`)!.verified).toBe(true);
    } finally {
      await h.services.integrations.dispatcher.stop();
      await receiver.close();
      await h.close();
    }
  });
});

describe.runIf(onPostgres)("two instances on PostgreSQL", () => {
  it("fan out and dispatch each delivery once per attempt", async () => {
    const h = await startToolgate({ env: { ...FAST, TOOLGATE_WEBHOOK_WORKER: "0" } });
    const receiver = await startWebhookReceiver();
    const second = await boot(h.config);
    const b = await createApp({ config: h.config, db: second.db, masterKey: second.masterKey, logger: createLogger("silent") });
    try {
      await subscribe(h, receiver, ["group.created"]);
      for (let i = 0; i < 20; i++) await h.admin("POST", "/uflow/v2/groups", { name: `twins ${i}` });
      // Both instances fan out the same chain and dispatch the same due rows, at the same time.
      await Promise.all([h.services.integrations.fanout.reconcile(), b.services.integrations.fanout.reconcile()]);
      expect(await h.db.webhookDelivery.count()).toBe(20);
      const [x, y] = await Promise.all([h.services.integrations.dispatcher.runOnce(), b.services.integrations.dispatcher.runOnce()]);
      expect(x + y).toBe(20);
      expect(receiver.received).toHaveLength(20);
      expect(new Set(receiver.received.map((r) => r.id)).size).toBe(20);
    } finally {
      await b.close();
      await second.db.$disconnect();
      await receiver.close();
      await h.close();
    }
  });
});
