// The one tenant-scoping choke point for reads outside the services: the GraphQL graph reads only
// through it (docs/graphql.md "How the graph reads"). tenantScopedReader(db, tenantId) is `db` with
// a Prisma query extension that
//   - ANDs the workspace into the `where` of every read of a workspace-owned table: `tenantId` on
//     the tables that carry it, `id` on Workspace (the tenant row itself). findUnique* keeps its
//     unique field and gets the filter beside it (Prisma's extended unique where);
//   - does the same, at any depth, for every to-many relation a read selects or includes and for
//     relation counts (`_count`), so nested lists folded into one query are scoped as well;
//   - refuses everything else: writes go through the services (role checks, unit of work, drift
//     events), and raw SQL cannot be scoped. The reader is a frozen facade that has only the read
//     methods of each model (write methods, raw SQL and $transaction exist only to throw): a hook
//     alone would not do, since the unit of work (unit-of-work.ts) runs first and re-issues a
//     tracked write on a transaction client of its own.
// To-one relations (Membership.user, RoleBinding.role, ...) follow the foreign key of a row that
// is already scoped (Prisma takes no filter on them). Tables without a tenant column (User,
// SigningKey, revocations) pass through unchanged, apart from their nested lists.
// Which table is scoped by which column, and where every relation leads, comes from the Prisma
// datamodel (DMMF) that the generator writes next to the Pothos types: Prisma 7's client no longer
// carries it at run time, and a new table with a tenantId is scoped without touching this file.
import { getDatamodel } from "../generated/pothos-types";
import type { Db } from "./prisma";

/** The operations the reader performs; every other one throws. */
export const READ_OPERATIONS = ["findUnique", "findUniqueOrThrow", "findFirst", "findFirstOrThrow", "findMany", "count", "aggregate", "groupBy"] as const;
type ReadOperation = (typeof READ_OPERATIONS)[number];
const WRITE_OPERATIONS = ["create", "createMany", "createManyAndReturn", "update", "updateMany", "updateManyAndReturn", "upsert", "delete", "deleteMany"];
const CLIENT_REFUSALS = ["$executeRaw", "$executeRawUnsafe", "$queryRaw", "$queryRawUnsafe", "$runCommandRaw", "$transaction", "$extends"];

type ModelKey = { [K in keyof Db]: K extends `$${string}` ? never : K extends string ? K : never }[keyof Db];

/** A client that can only read, and only the caller's workspace: the model delegates' read methods. */
export type TenantReader = { readonly [K in ModelKey]: Pick<Db[K], ReadOperation & keyof Db[K]> } & Pick<Db, "$connect">;

type Args = Record<string, any>;
type Where = Record<string, unknown> | undefined;

interface Relation {
  model: string;
  list: boolean;
}
interface ModelScope {
  /** The column that names the workspace, or undefined for tables that belong to no workspace. */
  column?: string;
  relations: Map<string, Relation>;
}

/** Model name -> its tenant column and its relations, from the DMMF. */
function modelScopes(): Map<string, ModelScope> {
  const models = getDatamodel().datamodel.models as Record<string, { fields: readonly { name: string; kind: string; type: string; isList: boolean }[] }>;
  const scopes = new Map<string, ModelScope>();
  for (const [name, { fields }] of Object.entries(models)) {
    const relations = new Map(fields.filter((f) => f.kind === "object").map((f) => [f.name, { model: f.type, list: f.isList }]));
    const column = name === "Workspace" ? "id" : fields.some((f) => f.name === "tenantId" && f.kind === "scalar") ? "tenantId" : undefined;
    scopes.set(name, { column, relations });
  }
  return scopes;
}

const SCOPES = modelScopes();

/** Every workspace-owned model and the column that scopes it (tests, docs). */
export const TENANT_COLUMNS: ReadonlyMap<string, string> = new Map([...SCOPES].flatMap(([m, s]) => (s.column ? [[m, s.column] as const] : [])));

const READS = new Set<string>(READ_OPERATIONS);
const UNIQUE = new Set(["findUnique", "findUniqueOrThrow"]);
const SELECTING = new Set(["findUnique", "findUniqueOrThrow", "findFirst", "findFirstOrThrow", "findMany"]);

const isEmpty = (where: Where) => !where || Object.keys(where).length === 0;
const and = (where: Where, filter: Args): Args => (isEmpty(where) ? filter : { AND: [where, filter] });

/** A unique where keeps its unique field on top; the filter goes beside it (or into AND if the column is named already). */
function besideUnique(where: Args, filter: Args, column: string): Args {
  if (!(column in where)) return { ...where, ...filter };
  const existing = where.AND === undefined ? [] : Array.isArray(where.AND) ? where.AND : [where.AND];
  return { ...where, AND: [...existing, filter] };
}

class Scoper {
  constructor(private readonly tenantId: string) {}

  private filter(scope: ModelScope | undefined): Args | undefined {
    return scope?.column ? { [scope.column]: this.tenantId } : undefined;
  }

  args(model: string, operation: string, args: Args | undefined): Args {
    const scope = SCOPES.get(model);
    const out: Args = { ...(args ?? {}) };
    if (!scope) return out;
    const filter = this.filter(scope);
    if (filter) out.where = UNIQUE.has(operation) ? besideUnique(out.where ?? {}, filter, scope.column!) : and(out.where, filter);
    if (SELECTING.has(operation)) {
      if (out.select) out.select = this.selection(scope, out.select);
      if (out.include) out.include = this.selection(scope, out.include);
    }
    return out;
  }

  /** A `select` or `include` of `scope`'s model: scopes its to-many relations and counts, recursively. */
  private selection(scope: ModelScope, selection: Args): Args {
    const out: Args = {};
    for (const [field, value] of Object.entries(selection)) {
      const relation = scope.relations.get(field);
      if (field === "_count") out[field] = this.counts(scope, value);
      else out[field] = relation && value ? this.relation(relation, value) : value;
    }
    return out;
  }

  private relation(relation: Relation, value: unknown): unknown {
    const target = SCOPES.get(relation.model);
    const filter = relation.list ? this.filter(target) : undefined;
    if (value === true) return filter ? { where: filter } : true;
    if (!target || typeof value !== "object" || value === null) return value;
    const nested: Args = { ...value };
    if (filter) nested.where = and(nested.where, filter);
    if (nested.select) nested.select = this.selection(target, nested.select);
    if (nested.include) nested.include = this.selection(target, nested.include);
    return nested;
  }

  /** `_count: true` or `_count: { select: { rel: true | { where } } }`: each counted relation gets the filter. */
  private counts(scope: ModelScope, value: unknown): unknown {
    if (!value) return value;
    const counted: Args =
      value === true
        ? Object.fromEntries([...scope.relations].filter(([, r]) => r.list).map(([name]) => [name, true]))
        : ((value as Args).select ?? {});
    const select: Args = {};
    for (const [name, v] of Object.entries(counted)) {
      const relation = scope.relations.get(name);
      const filter = relation ? this.filter(SCOPES.get(relation.model)) : undefined;
      select[name] = !filter || !v ? v : v === true ? { where: filter } : { ...(v as Args), where: and((v as Args).where, filter) };
    }
    return value === true ? { select } : { ...(value as Args), select };
  }
}

function refuse(model: string | undefined, operation: string): never {
  if (!model) throw new Error(`the tenant-scoped reader does not ${operation}: it only reads, one workspace; raw SQL cannot be scoped, writes go through the services`);
  throw new Error(`the tenant-scoped reader does not ${operation} ${model}: writes go through the services`);
}

const delegateName = (model: string) => model[0]!.toLowerCase() + model.slice(1);

function createReader(db: Db, tenantId: string): TenantReader {
  const scoper = new Scoper(tenantId);
  const scoped = db.$extends({
    name: "toolgate-tenant-scope",
    query: {
      async $allOperations({ model, operation, args, query }) {
        if (!model || !READS.has(operation)) refuse(model, operation);
        return query(scoper.args(model, operation, args as Args));
      },
    },
  }) as unknown as Record<string, any>;
  const reader: Record<string, unknown> = { $connect: () => scoped.$connect() };
  for (const method of CLIENT_REFUSALS) reader[method] = async () => refuse(undefined, method);
  for (const model of SCOPES.keys()) {
    let delegate: Record<string, (args?: unknown) => unknown> | undefined; // Prisma builds delegates on first access: so do we
    const facade: Record<string, unknown> = {};
    for (const op of READ_OPERATIONS) facade[op] = (args?: unknown) => (delegate ??= scoped[delegateName(model)])[op]!(args);
    for (const op of WRITE_OPERATIONS) facade[op] = async () => refuse(model, op);
    reader[delegateName(model)] = Object.freeze(facade);
  }
  return Object.freeze(reader) as unknown as TenantReader;
}

/** Readers are stateless; creating one costs about 0.1 ms, so those of the most recent workspaces are kept. */
const MAX_CACHED_READERS = 256;
const readers = new WeakMap<object, Map<string, TenantReader>>();

/**
 * The reader of `tenantId`'s rows on `db`: reads only, every one of them ANDed with the workspace.
 * The same object for the same (db, tenantId) while it is among the most recently used.
 */
export function tenantScopedReader(db: Db, tenantId: string): TenantReader {
  if (!tenantId) throw new Error("tenantScopedReader needs a tenant id");
  let byTenant = readers.get(db);
  if (!byTenant) readers.set(db, (byTenant = new Map()));
  let reader = byTenant.get(tenantId);
  if (reader) byTenant.delete(tenantId); // re-inserted below: most recently used last
  else reader = createReader(db, tenantId);
  byTenant.set(tenantId, reader);
  if (byTenant.size > MAX_CACHED_READERS) byTenant.delete(byTenant.keys().next().value!);
  return reader;
}
