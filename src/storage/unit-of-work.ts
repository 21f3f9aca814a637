// The one write path for cache invalidation (docs/decisions/0001-per-entry-caches.md).
//
// Every Prisma client Toolgate builds is wrapped here. Its `$transaction(async (tx) => ...)` is a
// unit of work: each create/update/upsert/delete on a table listed in change-tracking.ts records
// the cache entries its rows change; just before commit the changes are published to the other
// instances (PostgreSQL NOTIFY, delivered on commit only, so publication and commit are atomic);
// right after commit they are dropped from this process's caches, before the writer's caller
// gets its answer. A tracked write outside a transaction runs as a unit of work of its own.
//
// Services therefore write as they always did, `db.$transaction(...)` or a single `db.x.update`,
// and never name a cache key. Batch transactions (`$transaction([...])`) and raw SQL writes are
// not tracked: the first is refused, the second is not used on tracked tables.
//
// The same unit of work keeps the audit trail (docs/decisions/0038-audit-trail.md): the rows it
// reads and writes on audited tables (audit-capture.ts) become the before/after summary of ONE
// event, appended with ONE statement just before commit (audit-trail.ts), with the actor, address
// and request id of the request context. A service may name the event (recordAuditEvent below:
// "secret rotated" rather than "client updated"); it cannot forget it, and a rollback takes the
// event with it.
import { currentUnitOfWork, runInUnitOfWork } from "../shared/request-context";
import { ChangeSet, type ChangeBus } from "./change-bus";
import { BULK_KEY_LIMIT, TRACKED_MODELS, type TrackedModel } from "./change-tracking";
import { AUDITED_MODELS, AuditCapture, onlyBookkeeping, type AuditedModel } from "./audit-capture";
import type { AppendedEvent, AuditEventInput, AuditTrail } from "./audit-trail";

type Row = Record<string, unknown>;
type AnyArgs = Record<string, any>;
type AnyClient = Record<string, any>;

interface UnitOfWork {
  changes: ChangeSet;
  tx: AnyClient;
  audit: AuditCapture;
  /** The event as the service named it (recordAuditEvent), if it did. */
  event?: AuditEventInput;
}

/** The current unit of work, in the process's one async-context store (src/shared/request-context.ts). */
const current = {
  getStore: () => currentUnitOfWork<UnitOfWork>(),
  run: <R>(uow: UnitOfWork, fn: () => R): R => runInUnitOfWork(uow, fn),
};

const WRITES = new Set(["create", "createMany", "createManyAndReturn", "update", "updateMany", "updateManyAndReturn", "upsert", "delete", "deleteMany"]);
/** Reads whose rows are remembered inside a unit of work, as the `before` of a later update or delete. */
const ROW_READS = new Set(["findUnique", "findUniqueOrThrow", "findFirst", "findFirstOrThrow", "findMany"]);
const delegateName = (model: string) => model[0]!.toLowerCase() + model.slice(1);

/** Adds the key columns to an explicit `select`, returning the ones added (to strip them again). */
function withKeyFields(args: AnyArgs, t: TrackedModel): string[] {
  if (!args.select) return [];
  const added = t.fields.filter((f) => !args.select[f]);
  if (added.length) args.select = { ...args.select, ...Object.fromEntries(added.map((f) => [f, true])) };
  return added;
}

function strip<T>(result: T, added: string[]): T {
  if (added.length === 0 || result === null || typeof result !== "object") return result;
  const rows = Array.isArray(result) ? result : [result];
  for (const r of rows) for (const f of added) delete (r as Row)[f];
  return result;
}

function record(uow: UnitOfWork, t: TrackedModel, rows: readonly Row[]): void {
  if (rows.length > BULK_KEY_LIMIT) {
    for (const k of t.kinds) uow.changes.addAllOf(k);
    return;
  }
  for (const row of rows) {
    if (t.fields.some((f) => row[f] === undefined)) {
      for (const k of t.kinds) uow.changes.addAllOf(k); // cannot tell which entry: drop the kind
      continue;
    }
    for (const key of t.keys(row)) uow.changes.add(key);
  }
}

const onlyIgnored = (data: unknown, t: TrackedModel) =>
  !!t.ignore && data !== null && typeof data === "object" && !Array.isArray(data) && Object.keys(data).every((f) => t.ignore!.includes(f));

/**
 * Runs one write inside the current unit of work: records the cache entries it changed (tracked
 * tables) and what it changed for the audit trail (audited tables).
 */
async function unitWrite(uow: UnitOfWork, model: string, operation: string, args: AnyArgs, query: (a: AnyArgs) => Promise<unknown>) {
  const isDelete = operation === "delete" || operation === "deleteMany";
  const isUpdate = operation.startsWith("update");
  // A tracked table's write that changes no cached entry, and an audited table's write of bookkeeping only, are not recorded as such.
  let t: TrackedModel | undefined = TRACKED_MODELS[model];
  if (t && ((isDelete && t.deletesChangeNothing) || (isUpdate && onlyIgnored(args.data, t)))) t = undefined;
  let a: AuditedModel | undefined = AUDITED_MODELS[model];
  if (a && isUpdate && onlyBookkeeping(a, args.data)) a = undefined;
  if (!t && !a) return query(args);
  switch (operation) {
    case "createMany":
    case "createManyAndReturn": {
      const data = (Array.isArray(args.data) ? args.data : [args.data]) as Row[];
      const result = await query(args);
      if (t) record(uow, t, data);
      if (a) uow.audit.createdMany(model, data);
      return result;
    }
    case "updateMany":
    case "deleteMany": {
      if (!t) {
        const result = (await query(args)) as { count: number };
        if (a) uow.audit.counted(model, operation, result.count);
        return result;
      }
      // The rows the statement will touch, read in the same transaction (bounded: beyond the limit
      // the whole kind is dropped). An audited table reads whole rows: its summary's `before`.
      const select = a ? undefined : Object.fromEntries(t.fields.map((f) => [f, true]));
      const rows = (await uow.tx[delegateName(model)].findMany({ where: args.where, select, take: BULK_KEY_LIMIT + 1 })) as Row[];
      const result = await query(args);
      record(uow, t, rows);
      if (a) uow.audit.bulk(model, operation, rows, args.data);
      return result;
    }
    default: {
      const q = { ...args };
      const added = t ? withKeyFields(q, t) : [];
      const result = await query(q);
      const rows = (Array.isArray(result) ? result : result ? [result] : []) as Row[];
      if (t) record(uow, t, rows);
      if (a) uow.audit.written(model, operation, args, result);
      return strip(result, added);
    }
  }
}

/**
 * Wraps a Prisma client so every write is a unit of work that publishes what it changed on `bus`.
 * The returned client has the same API; `$transaction` takes interactive callbacks only.
 */
export function withUnitOfWork<C extends object>(base: C, bus: ChangeBus, trail: AuditTrail): C {
  let wrapped: AnyClient;

  const runUnitOfWork = async <T>(fn: (tx: AnyClient) => Promise<T>, options?: unknown): Promise<T> => {
    if (current.getStore()) throw new Error("nested unit of work: pass the transaction client down instead");
    const uow: UnitOfWork = { changes: new ChangeSet(), tx: undefined as unknown as AnyClient, audit: new AuditCapture() };
    let appended: AppendedEvent | undefined;
    try {
      const result = await (extended as AnyClient).$transaction(async (tx: AnyClient) => {
        uow.tx = tx;
        // Awaited inside run(): a Prisma query is a lazy thenable, executed (and its write tracked) where it is awaited.
        const value = await current.run(uow, async () => await fn(tx));
        const event = trail.compose(uow.audit, uow.event);
        if (event) appended = await trail.append(tx, event);
        await bus.publishInTransaction(tx as never, uow.changes);
        return value;
      }, options);
      if (appended) trail.committed(appended);
      return result;
    } finally {
      // After commit: this process's caches drop the changed entries before the caller continues.
      // After a rollback nothing changed, but dropping entries is always safe.
      bus.apply(uow.changes);
    }
  };

  const extended = (base as AnyClient).$extends({
    name: "toolgate-unit-of-work",
    query: {
      $allModels: {
        async $allOperations({ model, operation, args, query }: { model: string; operation: string; args: AnyArgs; query: (a: AnyArgs) => Promise<unknown> }) {
          if (!TRACKED_MODELS[model] && !AUDITED_MODELS[model]) return query(args);
          const uow = current.getStore();
          if (!WRITES.has(operation)) {
            if (!uow || !ROW_READS.has(operation) || !AUDITED_MODELS[model]) return query(args);
            const rows = await query(args);
            uow.audit.remember(model, rows);
            return rows;
          }
          if (uow) return unitWrite(uow, model, operation, args, query);
          // A tracked or audited write outside a transaction becomes a unit of work of its own.
          return runUnitOfWork((tx) => tx[delegateName(model)][operation](args));
        },
      },
    },
  });

  wrapped = new Proxy(extended as AnyClient, {
    get(target, prop) {
      if (prop === "$transaction") {
        return (arg: unknown, options?: unknown) => {
          if (typeof arg !== "function") throw new Error("batch transactions are not tracked: use db.$transaction(async (tx) => ...)");
          return runUnitOfWork(arg as (tx: AnyClient) => Promise<unknown>, options);
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return wrapped as C;
}

/**
 * Names the audit event of the current unit of work (docs/decisions/0038-audit-trail.md): its
 * action, target, outcome and details, instead of the action derived from its first change. Inside
 * a transaction (`db.$transaction(async (tx) => ...)`) this writes nothing itself: the unit of work
 * appends the one event at commit, with the changes it captured. Outside one, it runs a unit of
 * work of its own (one statement). One event per unit of work: naming a second is a bug.
 */
export async function recordAuditEvent(db: { $transaction: (fn: (tx: any) => Promise<unknown>) => Promise<unknown> }, event: AuditEventInput): Promise<void> {
  const uow = current.getStore();
  if (uow) {
    if (uow.event) throw new Error(`one audit event per unit of work: ${uow.event.action} was already recorded, not ${event.action}`);
    uow.event = event;
    return;
  }
  await db.$transaction(async () => {
    current.getStore()!.event = event;
  });
}
