// `toolgate audit verify` against a tampered database (docs/audit-and-integrations.md "Integrity"):
// an edited, a deleted and a reordered event, a truncation after a retention checkpoint, a forged
// checkpoint and a truncated tail are each reported; retention keeps a signed checkpoint from which
// the rest of the chain verifies; concurrent writers on two instances keep the chain linear.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_EMAIL, ADMIN_PASSWORD, startToolgate, type Harness } from "./helpers/harness";
import { ManualClock } from "../src/shared/clock";
import { runCli } from "../src/cli/run";
import { verifyAuditTrail, verifyCheckpoint } from "../src/modules/audit";
import { boot } from "../src/boot";
import { createApp } from "../src/app";
import { createLogger } from "../src/shared/logger";

const onPostgres = !!process.env.TEST_DATABASE_URL;
const DAY = 86_400_000;

/** `toolgate audit verify` in process: its exit status and report. */
async function verifyCli(h: Harness, ...args: string[]): Promise<{ status: number; report: any; stderr: string }> {
  let out = "";
  let err = "";
  const env = { DATABASE_URL: h.config.database.url, TOOLGATE_DATA_DIR: h.config.dataDir, TOOLGATE_MASTER_KEY: h.config.masterKey!.toString("hex") };
  const status = await runCli(["audit", "verify", ...args], env, { out: (t) => (out += t), err: (t) => (err += t) });
  return { status, report: out ? JSON.parse(out) : undefined, stderr: err };
}

/** Raw SQL that bypasses the unit of work: what an intruder with database access would run. */
async function tamper(h: Harness, sql: string, ...values: unknown[]): Promise<void> {
  const text = h.config.database.kind === "sqlite" ? sql.replace(/\$\d+/g, "?") : sql;
  await h.db.$executeRawUnsafe(text, ...values);
}

const problemsOf = (report: any, chain: string) => report.chains.find((c: any) => c.chain === chain).problems as string[];

describe("audit verify detects tampering", () => {
  let h: Harness;
  const clock = new ManualClock(new Date("2026-03-01T00:00:00.000Z"));

  beforeAll(async () => {
    h = await startToolgate({ clock, env: { TOOLGATE_AUDIT_RETENTION_DAYS: "30" } });
    for (let i = 0; i < 6; i++) {
      clock.advance(10 * DAY);
      const token = await h.login(ADMIN_EMAIL, ADMIN_PASSWORD); // admin tokens last an hour
      expect((await h.request("POST", "/uflow/v2/groups", { token, json: { name: `group ${i}` } })).status).toBe(201);
    }
  });
  afterAll(async () => h?.close());

  const ws = () => h.workspaceId;
  const events = () => h.db.auditEvent.findMany({ where: { chain: ws() }, orderBy: { seq: "asc" } });

  it("verifies an untouched trail (exit 0)", async () => {
    const r = await verifyCli(h);
    expect(r.status).toBe(0);
    expect(r.report.ok).toBe(true);
    const mine = r.report.chains.find((c: any) => c.chain === ws());
    const count = (await events()).length;
    expect(count).toBeGreaterThan(7);
    expect(mine).toMatchObject({ workspace_id: ws(), events: count, first_seq: 1, last_seq: count, problems: [], checkpoint: null });
    expect(r.report.chains.find((c: any) => c.chain === "installation")).toMatchObject({ ok: true, workspace_id: null });
  });

  it("an edited event", async () => {
    const second = (await events()).find((e) => e.action === "group.created")!;
    expect(second.summary).toContain("group 0");
    await tamper(h, `UPDATE "AuditEvent" SET "summary" = $1 WHERE "id" = $2`, second!.summary.replace("group 0", "group X"), second!.id);
    const r = await verifyCli(h, "--workspace", ws());
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("audit verify: the audit trail does not verify");
    expect(problemsOf(r.report, ws())).toEqual([`event ${second!.seq}: its hash does not match its content (edited)`]);
    await tamper(h, `UPDATE "AuditEvent" SET "summary" = $1 WHERE "id" = $2`, second!.summary, second!.id);
    expect((await verifyCli(h)).status).toBe(0);
  });

  it("an edited actor, even with its hash recomputed", async () => {
    const [, , third] = await events();
    await tamper(h, `UPDATE "AuditEvent" SET "actorId" = $1 WHERE "id" = $2`, "someone-else", third!.id);
    expect(problemsOf((await verifyCli(h)).report, ws())).toEqual([`event ${third!.seq}: its hash does not match its content (edited)`]);
    // An intruder who recomputes that event's hash breaks the link to the next one.
    const { chainHash, contentHash } = await import("../src/storage");
    const edited = (await events()).find((e) => e.id === third!.id)!;
    await tamper(h, `UPDATE "AuditEvent" SET "hash" = $1 WHERE "id" = $2`, chainHash(edited.prevHash, edited.seq, contentHash(edited)), edited.id);
    expect(problemsOf((await verifyCli(h)).report, ws())).toEqual([`event ${third!.seq + 1}: prev_hash does not match the event before it (an event was deleted, reordered or replaced)`]);
    await tamper(h, `UPDATE "AuditEvent" SET "actorId" = $1, "hash" = $2 WHERE "id" = $3`, third!.actorId, third!.hash, third!.id);
    expect((await verifyCli(h)).status).toBe(0);
  });

  it("a deleted event", async () => {
    const [, , , fourth] = await events();
    await tamper(h, `DELETE FROM "AuditEvent" WHERE "id" = $1`, fourth!.id);
    expect(problemsOf((await verifyCli(h)).report, ws())).toEqual([
      `events ${fourth!.seq} to ${fourth!.seq} are missing (deleted)`,
      `event ${fourth!.seq + 1}: prev_hash does not match the event before it (an event was deleted, reordered or replaced)`,
    ]);
    await h.db.auditEvent.create({ data: fourth! });
    expect((await verifyCli(h)).status).toBe(0);
  });

  it("two events swapped", async () => {
    const all = await events();
    const [a, b] = [all[2]!, all[3]!];
    // Swap their places in the chain (seq is unique: through a free value).
    await tamper(h, `UPDATE "AuditEvent" SET "seq" = $1 WHERE "id" = $2`, -1, a.id);
    await tamper(h, `UPDATE "AuditEvent" SET "seq" = $1 WHERE "id" = $2`, a.seq, b.id);
    await tamper(h, `UPDATE "AuditEvent" SET "seq" = $1 WHERE "id" = $2`, b.seq, a.id);
    const problems = problemsOf((await verifyCli(h)).report, ws());
    expect(problems).toContain(`event ${a.seq}: its hash does not match its content (edited)`);
    expect(problems).toContain(`event ${a.seq}: prev_hash does not match the event before it (an event was deleted, reordered or replaced)`);
    await tamper(h, `UPDATE "AuditEvent" SET "seq" = $1 WHERE "id" = $2`, -1, a.id);
    await tamper(h, `UPDATE "AuditEvent" SET "seq" = $1 WHERE "id" = $2`, b.seq, b.id);
    await tamper(h, `UPDATE "AuditEvent" SET "seq" = $1 WHERE "id" = $2`, a.seq, a.id);
    expect((await verifyCli(h)).status).toBe(0);
  });

  it("retention keeps a signed checkpoint; the rest verifies from it; a truncation after it is reported", async () => {
    const before = await events();
    // 30 days of retention: the events of the first 40 days go.
    const pruned = await h.services.audit.retention.prune();
    const mine = pruned.find((p) => p.chain === ws())!;
    expect(mine.events).toBeGreaterThan(0);
    const checkpoint = await h.db.auditCheckpoint.findFirstOrThrow({ where: { chain: ws() } });
    expect(checkpoint).toMatchObject({ seq: mine.up_to_seq, hash: before.find((e) => e.seq === mine.up_to_seq)!.hash, eventsPruned: mine.events });
    const signed = await verifyCheckpoint(h.db, checkpoint.jws);
    expect(signed).toMatchObject({ ok: true, claims: { chain: ws(), seq: checkpoint.seq, hash: checkpoint.hash, iss: h.config.publicUrl } });
    const after = await events();
    expect(after[0]!.seq).toBe(mine.up_to_seq + 1);
    // The deletion is itself an event, at the head of the chain, by the system.
    expect(after.at(-1)).toMatchObject({ action: "audit.pruned", actorType: "system", targetType: "audit_chain" });
    const ok = await verifyCli(h, "--workspace", ws());
    expect(ok.status).toBe(0);
    expect(ok.report.chains[0].checkpoint).toEqual({ seq: mine.up_to_seq, signature: "valid" });

    // Someone deletes the first events left after the checkpoint: reported as a truncation.
    await tamper(h, `DELETE FROM "AuditEvent" WHERE "id" = $1`, after[0]!.id);
    expect(problemsOf((await verifyCli(h)).report, ws())).toEqual([`events ${after[0]!.seq} to ${after[0]!.seq} are missing after the checkpoint at seq ${mine.up_to_seq} (truncated)`, `event ${after[1]!.seq}: prev_hash does not match the event before it (an event was deleted, reordered or replaced)`]);
    await h.db.auditEvent.create({ data: after[0]! });

    // A checkpoint moved forward to hide events fails its signature check.
    await tamper(h, `UPDATE "AuditCheckpoint" SET "seq" = $1 WHERE "id" = $2`, checkpoint.seq + 1, checkpoint.id);
    expect(problemsOf((await verifyCli(h)).report, ws())[0]).toBe(`checkpoint at seq ${checkpoint.seq + 1}: its signed claims do not match the stored checkpoint`);
    await tamper(h, `UPDATE "AuditCheckpoint" SET "seq" = $1 WHERE "id" = $2`, checkpoint.seq, checkpoint.id);
    expect((await verifyCli(h)).status).toBe(0);
  });

  it("a truncated tail: against the chain head (PostgreSQL) and against a head kept outside (--expect-head)", async () => {
    const all = await events();
    const last = all.at(-1)!;
    const r = await verifyCli(h, "--workspace", ws(), "--expect-head", `${last.seq}:${last.hash}`);
    expect(r.status).toBe(0);
    await tamper(h, `DELETE FROM "AuditEvent" WHERE "id" = $1`, last.id);
    const cut = await verifyCli(h, "--workspace", ws(), "--expect-head", `${last.seq}:${last.hash}`);
    expect(cut.status).toBe(1);
    expect(problemsOf(cut.report, ws())).toContain(`the chain's head is at seq ${last.seq} but its last event is ${last.seq - 1} (truncated)`);
    // Without the outside head: PostgreSQL's chain head row still sees it; SQLite has no such row.
    const plain = await verifyCli(h, "--workspace", ws());
    expect(plain.status).toBe(onPostgres ? 1 : 0);
    await h.db.auditEvent.create({ data: last });
    expect((await verifyCli(h)).status).toBe(0);
    expect((await verifyCli(h, "--expect-head", "1:abc")).stderr).toBe("audit verify: --expect-head must be SEQ:HASH (a seq and a 64-character hex hash)");
  });
});

describe.runIf(onPostgres)("concurrent writers on two instances", () => {
  it("keep each workspace's chain linear", async () => {
    const h = await startToolgate();
    const second = await boot(h.config);
    const b = await createApp({ config: h.config, db: second.db, masterKey: second.masterKey, logger: createLogger("silent") });
    try {
      const actor = { userId: h.ownerId, tenantId: h.workspaceId, role: "owner" as const };
      await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? h.services : b.services).rbac.groups.create(actor, { name: `concurrent ${i}` })),
      );
      const report = await verifyAuditTrail(h.db, { chain: h.workspaceId });
      // The bootstrap, the harness's sign-in, then the 40 groups: one chain, no gap, no fork.
      expect(report.chains[0]).toMatchObject({ ok: true, events: 42, last_seq: 42, problems: [] });
    } finally {
      await b.close();
      await second.db.$disconnect();
      await h.close();
    }
  });
});
