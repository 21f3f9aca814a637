// Prisma client factory: the adapter is chosen from DATABASE_URL. Both providers' clients are
// generated from the same schema (scripts/prisma-generate.mjs) and expose the same model API,
// so the rest of the code uses the SQLite client's types for both.
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { randomUUID } from "node:crypto";
import type { PrismaClient } from "../generated/sqlite/client";
import { ChangeBus } from "./change-bus";
import { withUnitOfWork } from "./unit-of-work";
import { AuditTrail } from "./audit-trail";
import { pgTransport } from "./pg-notifications";
import { SQLITE_WATCH_QUERY } from "./sqlite-watch";
import { loadSqliteDriver } from "./sqlite-driver";
import { SqliteAdapterFactory } from "./sqlite-adapter";

export type Db = PrismaClient;
/** A transaction client: what `db.$transaction(async (tx) => ...)` hands to its callback. */
export type Tx = Parameters<Parameters<PrismaClient["$transaction"]>[0]>[0];
/** Either the root client or a transaction client; services accept both. */
export type DbOrTx = Db | Tx;

/** One SQL statement as Prisma reports it (text and duration in ms; the parameters are left out). */
export interface QueryObservation {
  query: string;
  duration: number;
}
type QueryObserver = (q: QueryObservation) => void;
const queryObservers = new Set<QueryObserver>();

/**
 * Observes every SQL statement of the clients created AFTER the first call (tests that count
 * queries, e.g. the GraphQL N+1 test, call it before starting the app); returns the unsubscribe.
 * Prisma only emits query events for clients built with the log option, and serialises every
 * statement's parameters when it does, so the app never pays for it unless something observes.
 */
export function observeQueries(observer: QueryObserver): () => void {
  queryObservers.add(observer);
  return () => queryObservers.delete(observer);
}

function queryLogOption(): { log?: [{ emit: "event"; level: "query" }] } {
  return queryObservers.size > 0 ? { log: [{ emit: "event", level: "query" }] } : {};
}

function forwardQueries(client: unknown): void {
  if (queryObservers.size === 0) return;
  (client as { $on(event: "query", cb: (e: QueryObservation) => void): void }).$on("query", (e) => {
    // The SQLite watch's poll (sqlite-watch.ts) is housekeeping on a timer, not a request's query.
    if (e.query === SQLITE_WATCH_QUERY) return;
    for (const o of queryObservers) o({ query: e.query, duration: e.duration });
  });
}

export interface DatabaseTarget {
  kind: "sqlite" | "postgresql";
  url: string;
}

/** Resolves `file:relative/path.db` against the working directory and ensures its folder exists. */
export function sqliteFilePath(url: string): string {
  const path = resolve(url.replace(/^file:/, "").replace(/\?.*$/, ""));
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  return path;
}

const buses = new WeakMap<object, ChangeBus>();
const trails = new WeakMap<object, AuditTrail>();

/**
 * The change bus of a client made by createPrismaClient: its writes publish there, and the caches
 * built on this client subscribe there (storage/change-bus.ts).
 */
export function changesOf(db: Db): ChangeBus {
  const bus = buses.get(db);
  if (!bus) throw new Error("not a client made by createPrismaClient");
  return bus;
}

/** The audit trail of a client made by createPrismaClient: its units of work append there (audit-trail.ts). */
export function auditTrailOf(db: Db): AuditTrail {
  const trail = trails.get(db);
  if (!trail) throw new Error("not a client made by createPrismaClient");
  return trail;
}

/** A client whose every write is a unit of work publishing its cache changes and appending its audit event (unit-of-work.ts). */
export async function createPrismaClient(target: DatabaseTarget): Promise<Db> {
  const bus = new ChangeBus(randomUUID());
  if (target.kind === "postgresql") bus.useTransport(pgTransport(bus.instanceId));
  const trail = new AuditTrail(target.kind);
  const db = withUnitOfWork(await createRawClient(target), bus, trail);
  buses.set(db, bus);
  trails.set(db, trail);
  return db;
}

async function createRawClient(target: DatabaseTarget): Promise<Db> {
  if (target.kind === "sqlite") {
    loadSqliteDriver();
    const { PrismaClient: SqliteClient } = await import("../generated/sqlite/client");
    const adapter = new SqliteAdapterFactory({ url: `file:${sqliteFilePath(target.url)}` });
    const client = new SqliteClient({ adapter, ...queryLogOption() });
    forwardQueries(client);
    // WAL lets readers proceed during a write (the adapter's connection already waits up to
    // BUSY_TIMEOUT_MS for another process's write lock instead of failing at once).
    await client.$queryRawUnsafe("PRAGMA journal_mode = WAL");
    await client.$queryRawUnsafe("PRAGMA foreign_keys = ON");
    return client;
  }
  const [{ PrismaClient: PgClient }, { PrismaPg }] = await Promise.all([import("../generated/pg/client"), import("@prisma/adapter-pg")]);
  const adapter = new PrismaPg({ connectionString: target.url });
  const client = new PgClient({ adapter, ...queryLogOption() });
  forwardQueries(client);
  return client as unknown as Db;
}
