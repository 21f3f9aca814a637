// `toolgate audit verify` and `toolgate audit prune` (docs/audit-and-integrations.md). verify walks
// every chain of the audit trail and recomputes its hashes (modules/audit/verify.ts); it exits 1
// when any chain has a problem. prune applies TOOLGATE_AUDIT_RETENTION_DAYS now, as every server
// does hourly, keeping a signed checkpoint per chain.
import type { CliCommand } from "../command";
import { CliExit, usageError } from "../command";
import { withDatabase } from "../open-services";

export const auditVerifyCommand: CliCommand = {
  name: "audit verify",
  synopsis: "[--workspace ID] [--expect-head SEQ:HASH]",
  summary:
    "recompute the audit trail's hash chains (edited, deleted, reordered or truncated events; checkpoint signatures);\n" +
    'prints {"ok", "chains":[{"chain", "events", "last_seq", "last_hash", "problems"}]}, exit 1 when not ok.\n' +
    "--expect-head: the last seq and hash seen outside the database (e.g. by a log shipper) for --workspace",
  options: { workspace: { type: "string" }, "expect-head": { type: "string" } },
  async run(ctx, values) {
    const head = values["expect-head"] as string | undefined;
    const m = head === undefined ? undefined : /^(\d{1,9}):([0-9a-f]{64})$/.exec(head);
    if (head !== undefined && !m) usageError("audit verify: --expect-head must be SEQ:HASH (a seq and a 64-character hex hash)");
    if (head !== undefined && !values.workspace) usageError("audit verify: --expect-head needs --workspace (the chain it belongs to; installation for the installation's)");
    await withDatabase(ctx, async ({ booted }) => {
      const { verifyAuditTrail } = await import("../../modules/audit");
      const report = await verifyAuditTrail(booted.db, { chain: values.workspace as string | undefined, expectHead: m ? { seq: Number(m[1]), hash: m[2]! } : undefined });
      ctx.io.out(JSON.stringify(report, null, 2));
      if (!report.ok) throw new CliExit(1, "audit verify: the audit trail does not verify (see problems)");
    });
  },
};

export const auditPruneCommand: CliCommand = {
  name: "audit prune",
  synopsis: "",
  summary: 'delete events older than TOOLGATE_AUDIT_RETENTION_DAYS now, keeping a signed checkpoint per chain; prints [{"chain", "up_to_seq", "events"}]',
  options: {},
  async run(ctx) {
    await withDatabase(ctx, async ({ services }) => {
      ctx.io.out(JSON.stringify(await (await services()).audit.retention.prune()));
    });
  },
};
