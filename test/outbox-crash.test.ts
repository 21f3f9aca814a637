// The outbox survives a crash (docs/decisions/0039-webhooks-outbox.md): real server processes,
// killed with SIGKILL (kill -9) after an admin write committed and before its webhook was
// delivered, or while the delivery was in flight; the next process delivers it, signed, and the
// log stream has every event.
import { afterAll, describe, expect, it, vi } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { freshEnv as createEnv, type TestDatabase } from "./helpers/database";
import { startServerProcess, type RunningServer } from "./helpers/process";
import { startWebhookReceiver, type WebhookReceiver } from "./helpers/webhook-receiver";
import { eventually } from "./helpers/eventually";

vi.setConfig({ testTimeout: 180_000 });

const dbs: TestDatabase[] = [];
const servers: RunningServer[] = [];
const receivers: WebhookReceiver[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
  for (const r of receivers) await r.close();
  for (const d of dbs) await d.drop();
});

const ADMIN = { email: "crash@example.test", password: "crash test password 1" };

async function start(env: Record<string, string>, worker: boolean): Promise<RunningServer> {
  // The compiled build (node dist/main.js, built by `npm test`'s pretest): one process, so SIGKILL reaches the server itself.
  const s = await startServerProcess((url) => ({ ...env, TOOLGATE_PUBLIC_URL: url, TOOLGATE_WEBHOOK_WORKER: worker ? "1" : "0", TOOLGATE_LOG_LEVEL: "warn" }), undefined, "compiled");
  servers.push(s);
  return s;
}

async function call(s: RunningServer, token: string | undefined, method: string, path: string, json?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(s.url + path, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(json === undefined ? {} : { "content-type": "application/json" }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

async function login(s: RunningServer): Promise<string> {
  const r = await call(s, undefined, "POST", "/svc/uflow/auth/login", ADMIN);
  expect(r.status).toBe(200);
  return r.body.access_token;
}

/** SIGKILL: no shutdown handler runs, nothing is flushed. */
async function kill9(s: RunningServer): Promise<void> {
  const exited = new Promise((resolve) => s.child.once("exit", resolve));
  s.child.kill("SIGKILL");
  await exited;
  servers.splice(servers.indexOf(s), 1); // nothing left to stop (exitCode stays null after a signal)
}

describe("kill -9", () => {
  it("between commit and delivery loses nothing; in the middle of a delivery, it is sent again with the same id", async () => {
    const base = await createEnv(dbs);
    const logFile = join(base.TOOLGATE_DATA_DIR!, "audit.jsonl");
    const env = {
      ...base,
      TOOLGATE_ADMIN_EMAIL: ADMIN.email,
      TOOLGATE_ADMIN_PASSWORD: ADMIN.password,
      TOOLGATE_WEBHOOK_ALLOW_PRIVATE: "1",
      // Long enough that a loaded machine's slow answer is not taken for a hang; the lease is 2x + 1 s.
      TOOLGATE_WEBHOOK_TIMEOUT_MS: "1000",
      TOOLGATE_WEBHOOK_RETRY_BASE_MS: "100",
      TOOLGATE_AUDIT_LOG_STREAM: logFile,
    };
    const receiver = await startWebhookReceiver();
    receivers.push(receiver);

    // 1. An instance that does not deliver (TOOLGATE_WEBHOOK_WORKER=0): the write commits, then the process dies.
    const first = await start(env, false);
    let token = await login(first);
    const hook = await call(first, token, "POST", "/svc/exsvc/webhooks", { url: receiver.url, event_types: ["group.created"] });
    expect(hook.status).toBe(201);
    receiver.secret = hook.body.secret;
    const group = await call(first, token, "POST", "/uflow/v2/groups", { name: "survives kill -9" });
    expect(group.status).toBe(201);
    await kill9(first);
    expect(receiver.requests).toBe(0);

    // 2. The next process delivers it.
    const second = await start(env, true);
    await eventually(async () => receiver.ofType("group.created").length === 1, "delivered after the restart", 30_000);
    const delivered = receiver.ofType("group.created")[0]!;
    expect(delivered.verified).toBe(true);
    expect(delivered.payload!.data).toMatchObject({ action: "group.created", target: { type: "group", id: group.body.id } });

    // 3. A delivery in flight when the process dies (the receiver hangs): claimed again after its lease.
    receiver.mode = { kind: "hang" };
    token = await login(second);
    expect((await call(second, token, "POST", "/uflow/v2/groups", { name: "in flight" })).status).toBe(201);
    await eventually(async () => receiver.hung.length === 1, "the second delivery reached the receiver", 30_000);
    await kill9(second);
    receiver.mode = { kind: "ok" };
    const third = await start(env, true);
    // The same message (webhook-id) as the one in flight: its receiver can deduplicate. Waited for by
    // id, so a further copy (a retry after a slow answer) cannot hide it.
    const inFlightId = receiver.hung[0]!;
    await eventually(async () => receiver.received.some((r) => r.id === inFlightId), "the in-flight delivery sent again", 30_000).catch((e: Error) => {
      throw new Error(`${e.message}\nreceived: ${JSON.stringify(receiver.received.map((r) => [r.id, r.verified, r.payload?.type]))}\nhung: ${JSON.stringify(receiver.hung)}\nserver said:\n${third.output()}`);
    });
    const again = receiver.received.find((r) => r.id === inFlightId)!;
    expect(again.verified).toBe(true);
    expect(again.payload!.type).toBe("group.created");
    expect(again.payload!.data.target.id).not.toBe(group.body.id);

    // The log stream: every event of the workspace's chain, in order, at least once (duplicates only by id).
    await eventually(async () => readFileSync(logFile, "utf8").includes('"in flight"'), "the log stream caught up", 30_000);
    const lines = readFileSync(logFile, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    const ws = lines.filter((l) => l.workspace_id === group.body.workspace_id || l.workspace_id === hook.body.workspace_id);
    const seqs = [...new Set(ws.map((l) => l.seq))];
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    for (const l of lines) expect(l).toMatchObject({ type: "audit_event", id: expect.any(String), hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(readFileSync(logFile, "utf8")).not.toContain(hook.body.secret);
  });
});
