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
import { AsyncLocalStorage } from "node:async_hooks";
import { ChangeSet, type ChangeBus } from "./change-bus";
import { BULK_KEY_LIMIT, TRACKED_MODELS, type TrackedModel } from "./change-tracking";

type Row = Record<string, unknown>;
type AnyArgs = Record<string, any>;
type AnyClient = Record<string, any>;

interface UnitOfWork {
  changes: ChangeSet;
  tx: AnyClient;
}

const current = new AsyncLocalStorage<UnitOfWork>();

const WRITES = new Set(["create", "createMany", "createManyAndReturn", "update", "updateMany", "updateManyAndReturn", "upsert", "delete", "deleteMany"]);
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

/** Runs one tracked write inside the current unit of work and records what it changed. */
async function trackedWrite(uow: UnitOfWork, t: TrackedModel, model: string, operation: string, args: AnyArgs, query: (a: AnyArgs) => Promise<unknown>) {
  const isDelete = operation === "delete" || operation === "deleteMany";
  if (isDelete && t.deletesChangeNothing) return query(args);
  if (operation.startsWith("update") && onlyIgnored(args.data, t)) return query(args);
  switch (operation) {
    case "createMany": {
      const data = (Array.isArray(args.data) ? args.data : [args.data]) as Row[];
      const result = await query(args);
      record(uow, t, data);
      return result;
    }
    case "updateMany":
    case "deleteMany": {
      // The rows the statement will touch, read in the same transaction (bounded: beyond the limit
      // the whole kind is dropped).
      const select = Object.fromEntries(t.fields.map((f) => [f, true]));
      const rows = (await uow.tx[delegateName(model)].findMany({ where: args.where, select, take: BULK_KEY_LIMIT + 1 })) as Row[];
      const result = await query(args);
      record(uow, t, rows);
      return result;
    }
    default: {
      const a = { ...args };
      const added = withKeyFields(a, t);
      const result = await query(a);
      const rows = (Array.isArray(result) ? result : result ? [result] : []) as Row[];
      record(uow, t, rows);
      return strip(result, added);
    }
  }
}

/**
 * Wraps a Prisma client so every write is a unit of work that publishes what it changed on `bus`.
 * The returned client has the same API; `$transaction` takes interactive callbacks only.
 */
export function withUnitOfWork<C extends object>(base: C, bus: ChangeBus): C {
  let wrapped: AnyClient;

  const runUnitOfWork = async <T>(fn: (tx: AnyClient) => Promise<T>, options?: unknown): Promise<T> => {
    if (current.getStore()) throw new Error("nested unit of work: pass the transaction client down instead");
    const uow: UnitOfWork = { changes: new ChangeSet(), tx: undefined as unknown as AnyClient };
    try {
      const result = await (extended as AnyClient).$transaction(async (tx: AnyClient) => {
        uow.tx = tx;
        // Awaited inside run(): a Prisma query is a lazy thenable, executed (and its write tracked) where it is awaited.
        const value = await current.run(uow, async () => await fn(tx));
        await bus.publishInTransaction(tx as never, uow.changes);
        return value;
      }, options);
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
          const t = TRACKED_MODELS[model];
          if (!t || !WRITES.has(operation)) return query(args);
          const uow = current.getStore();
          if (uow) return trackedWrite(uow, t, model, operation, args, query);
          // A tracked write outside a transaction becomes a unit of work of its own.
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
