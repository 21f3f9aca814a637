// Prisma's driver-adapter interface (@prisma/driver-adapter-utils) over libsql's synchronous,
// better-sqlite3-compatible binding: the embedded database's driver
// (docs/decisions/0027-embedded-database-driver.md).
//
// Why our own adapter rather than @prisma/adapter-libsql: that one drives libsql through
// @libsql/client, which hands each transaction the current connection and opens a new one for
// the statements after it. Connection settings (busy_timeout) and `PRAGMA data_version`, which
// compares commits against *this* connection (storage/sqlite-watch.ts), lose their meaning when
// the connection changes after every write. Here one connection serves the client for its life,
// as Prisma's better-sqlite3 adapter did, and the conversions below are that adapter's, so a
// database file written by earlier versions of Toolgate reads and writes exactly as before
// (datetimes as ISO 8601 TEXT ending in "+00:00", integers as BigInt from the driver).
//
// One connection is shared by every caller, so a transaction takes it (BEGIN ... COMMIT) and
// statements outside a transaction wait until no transaction holds it: they never run inside
// someone else's transaction. Every statement itself is synchronous (SQLite in process).
import { createRequire } from "node:module";
import {
  ColumnTypeEnum,
  DriverAdapterError,
  type ArgType,
  type ColumnType,
  type IsolationLevel,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQuery,
  type SqlResultSet,
  type Transaction,
  type TransactionOptions,
} from "@prisma/driver-adapter-utils";

const ADAPTER_NAME = "toolgate-libsql";

/** The part of libsql's (better-sqlite3-compatible) API this adapter uses. */
interface Statement {
  readonly reader: boolean;
  // Parameters go as one array: a lone `null` passed as an argument list is taken for named parameters.
  run(args?: unknown[]): { changes: number | bigint };
  columns(): Array<{ name: string; type: string | null }>;
  raw(toggle?: boolean): { all(args: unknown[]): unknown[][] };
}
interface Connection {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  defaultSafeIntegers(toggle: boolean): void;
  close(): void;
}
type ConnectionClass = new (path: string, options: { timeout: number }) => Connection;

/** How long a statement waits for another process's write lock (the CLI) before failing: SQLite's busy_timeout. */
export const BUSY_TIMEOUT_MS = 5000;

function openConnection(path: string): Connection {
  // Loaded lazily: only SQLite deployments need the native binding (sqlite-driver.ts loads it
  // first, at start-up, to explain a missing binary in two lines).
  const Database = createRequire(import.meta.url)("libsql") as ConnectionClass;
  const connection = new Database(path, { timeout: BUSY_TIMEOUT_MS });
  connection.defaultSafeIntegers(true);
  // In WAL mode (storage/prisma.ts), NORMAL syncs at checkpoints rather than at every commit: a
  // killed process loses nothing committed, a power cut may lose the last commits. It is what
  // better-sqlite3 was built with (SQLITE_DEFAULT_WAL_SYNCHRONOUS=1), so durability is unchanged;
  // FULL, libsql's default, costs an fsync per write (decision 0027 has the figures).
  connection.exec("PRAGMA synchronous = NORMAL");
  return connection;
}

/** Serialises transactions on the one connection; statements outside one wait for it to end. */
class ConnectionGate {
  private tail: Promise<unknown> = Promise.resolve();
  private held = 0;

  /** Takes the connection for a transaction; the function returned gives it back (once). */
  take(): Promise<() => void> {
    this.held++;
    let give!: () => void;
    const given = new Promise<void>((resolve) => {
      let done = false;
      give = () => {
        if (done) return;
        done = true;
        this.held--;
        resolve();
      };
    });
    const taken = this.tail.then(() => give);
    this.tail = taken.then(() => given);
    return taken;
  }

  /** Runs a statement outside any transaction: at once when none holds the connection. */
  run<T>(statement: () => T): Promise<T> {
    if (this.held === 0) {
      try {
        return Promise.resolve(statement());
      } catch (e) {
        return Promise.reject(e);
      }
    }
    return this.tail.then(statement);
  }
}

class Queryable {
  readonly provider = "sqlite" as const;
  readonly adapterName = ADAPTER_NAME;

  constructor(
    protected readonly connection: Connection,
    private readonly gate: ConnectionGate | undefined,
  ) {}

  /** Outside a transaction through the gate; inside one the caller already holds the connection. */
  private run<T>(statement: () => T): Promise<T> {
    if (!this.gate) {
      try {
        return Promise.resolve(statement());
      } catch (e) {
        return Promise.reject(e);
      }
    }
    return this.gate.run(statement);
  }

  queryRaw(query: SqlQuery): Promise<SqlResultSet> {
    return this.run(() => {
      try {
        const args = query.args.map((arg, i) => toDriverValue(arg, query.argTypes[i]!));
        const statement = this.connection.prepare(query.sql);
        if (!statement.reader) {
          statement.run(args);
          return { columnNames: [], columnTypes: [], rows: [] };
        }
        const columns = statement.columns();
        const rows = statement.raw(true).all(args);
        const columnTypes = columnTypesOf(columns.map((c) => c.type), rows);
        return { columnNames: columns.map((c) => c.name), columnTypes, rows: rows.map((row) => fromDriverRow(row, columnTypes)) };
      } catch (e) {
        throw adapterError(e);
      }
    });
  }

  executeRaw(query: SqlQuery): Promise<number> {
    return this.run(() => {
      try {
        const args = query.args.map((arg, i) => toDriverValue(arg, query.argTypes[i]!));
        return Number(this.connection.prepare(query.sql).run(args).changes);
      } catch (e) {
        throw adapterError(e);
      }
    });
  }
}

class SqliteTransaction extends Queryable implements Transaction {
  // Prisma sends COMMIT and ROLLBACK itself (usePhantomQuery: false); commit() and rollback() then
  // only give the connection back.
  readonly options: TransactionOptions = { usePhantomQuery: false };

  constructor(
    connection: Connection,
    private readonly giveBack: () => void,
  ) {
    super(connection, undefined);
  }

  commit(): Promise<void> {
    this.giveBack();
    return Promise.resolve();
  }

  rollback(): Promise<void> {
    this.giveBack();
    return Promise.resolve();
  }

  async createSavepoint(name: string): Promise<void> {
    await this.executeRaw({ sql: `SAVEPOINT ${name}`, args: [], argTypes: [] });
  }

  async rollbackToSavepoint(name: string): Promise<void> {
    await this.executeRaw({ sql: `ROLLBACK TO ${name}`, args: [], argTypes: [] });
  }

  async releaseSavepoint(name: string): Promise<void> {
    await this.executeRaw({ sql: `RELEASE SAVEPOINT ${name}`, args: [], argTypes: [] });
  }
}

class SqliteAdapter extends Queryable implements SqlDriverAdapter {
  private readonly transactions: ConnectionGate;

  constructor(connection: Connection) {
    const gate = new ConnectionGate();
    super(connection, gate);
    this.transactions = gate;
  }

  async executeScript(script: string): Promise<void> {
    const giveBack = await this.transactions.take();
    try {
      this.connection.exec(script);
    } catch (e) {
      throw adapterError(e);
    } finally {
      giveBack();
    }
  }

  async startTransaction(isolationLevel?: IsolationLevel): Promise<Transaction> {
    // SQLite transactions are serializable; nothing else can be asked for.
    if (isolationLevel && isolationLevel !== "SERIALIZABLE") throw new DriverAdapterError({ kind: "InvalidIsolationLevel", level: isolationLevel });
    const giveBack = await this.transactions.take();
    try {
      this.connection.prepare("BEGIN").run();
    } catch (e) {
      giveBack();
      throw adapterError(e);
    }
    return new SqliteTransaction(this.connection, giveBack);
  }

  dispose(): Promise<void> {
    this.connection.close();
    return Promise.resolve();
  }
}

/** `new PrismaClient({ adapter: new SqliteAdapterFactory({ url: "file:/path/to.db" }) })`; `:memory:` works too. */
export class SqliteAdapterFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = "sqlite" as const;
  readonly adapterName = ADAPTER_NAME;

  constructor(private readonly config: { url: string }) {}

  connect(): Promise<SqlDriverAdapter> {
    return Promise.resolve(new SqliteAdapter(openConnection(this.config.url.replace(/^file:/, ""))));
  }

  connectToShadowDb(): Promise<SqlDriverAdapter> {
    return Promise.resolve(new SqliteAdapter(openConnection(":memory:")));
  }
}

// --- Conversions (those of Prisma's better-sqlite3 adapter, which wrote our existing files) ---

/** A column's declared SQL type to Prisma's column type; null when SQLite gives none (an expression). */
function declaredType(declType: string | null): ColumnType | null {
  switch (declType?.toUpperCase()) {
    case undefined:
    case "":
      return null;
    case "DECIMAL":
      return ColumnTypeEnum.Numeric;
    case "FLOAT":
      return ColumnTypeEnum.Float;
    case "DOUBLE":
    case "DOUBLE PRECISION":
    case "NUMERIC":
    case "REAL":
      return ColumnTypeEnum.Double;
    case "TINYINT":
    case "SMALLINT":
    case "MEDIUMINT":
    case "INT":
    case "INTEGER":
    case "SERIAL":
    case "INT2":
      return ColumnTypeEnum.Int32;
    case "BIGINT":
    case "UNSIGNED BIG INT":
    case "INT8":
      return ColumnTypeEnum.Int64;
    case "DATETIME":
    case "TIMESTAMP":
      return ColumnTypeEnum.DateTime;
    case "TIME":
      return ColumnTypeEnum.Time;
    case "DATE":
      return ColumnTypeEnum.Date;
    case "TEXT":
    case "CLOB":
    case "CHARACTER":
    case "VARCHAR":
    case "VARYING CHARACTER":
    case "NCHAR":
    case "NATIVE CHARACTER":
    case "NVARCHAR":
      return ColumnTypeEnum.Text;
    case "BLOB":
      return ColumnTypeEnum.Bytes;
    case "BOOLEAN":
      return ColumnTypeEnum.Boolean;
    case "JSONB":
      return ColumnTypeEnum.Json;
    default:
      return null;
  }
}

/** Declared types, and for columns without one (expressions) the type of their first non-null value. */
function columnTypesOf(declared: Array<string | null>, rows: unknown[][]): ColumnType[] {
  return declared.map((d, column) => {
    const known = declaredType(d);
    if (known !== null) return known;
    const value = rows.find((row) => row[column] !== null)?.[column];
    return value === undefined ? ColumnTypeEnum.Int32 : inferredType(value);
  });
}

function inferredType(value: unknown): ColumnType {
  switch (typeof value) {
    case "string":
      return ColumnTypeEnum.Text;
    case "bigint":
      return ColumnTypeEnum.Int64;
    case "boolean":
      return ColumnTypeEnum.Boolean;
    case "number":
      return ColumnTypeEnum.UnknownNumber;
    default:
      if (value instanceof ArrayBuffer || value instanceof Uint8Array) return ColumnTypeEnum.Bytes;
      throw new Error(`unexpected value of type ${typeof value} from SQLite`);
  }
}

function fromDriverRow(row: unknown[], columnTypes: ColumnType[]): unknown[] {
  return row.map((value, i) => {
    const type = columnTypes[i];
    if (typeof value === "number" && (type === ColumnTypeEnum.Int32 || type === ColumnTypeEnum.Int64) && !Number.isInteger(value)) return Math.trunc(value);
    if ((typeof value === "number" || typeof value === "bigint") && type === ColumnTypeEnum.DateTime) return new Date(Number(value)).toISOString();
    if (typeof value === "bigint") {
      const asNumber = Number(value);
      return Number.isSafeInteger(asNumber) ? asNumber : value.toString();
    }
    return value;
  });
}

function toDriverValue(arg: unknown, argType: ArgType): unknown {
  if (arg === null) return null;
  if (typeof arg === "string") {
    switch (argType.scalarType) {
      case "int":
        return Number.parseInt(arg, 10);
      case "float":
      case "decimal":
        return Number.parseFloat(arg);
      case "bigint":
        return BigInt(arg);
      case "datetime":
        return toSqliteDate(new Date(arg));
      case "bytes":
        return Buffer.from(arg, "base64");
    }
  }
  if (typeof arg === "boolean") return arg ? 1 : 0;
  if (arg instanceof Date) return toSqliteDate(arg);
  return arg;
}

/** ISO 8601 with "+00:00": the format every Toolgate SQLite file already holds. */
function toSqliteDate(d: Date): string {
  return d.toISOString().replace("Z", "+00:00");
}

// --- Errors: SQLite's codes to Prisma's error kinds (storage/prisma-errors.ts reads the kinds) ---

const SQLITE_BUSY = 5;

function adapterError(e: unknown): unknown {
  const err = e as { code?: unknown; message?: unknown; rawCode?: unknown } | null;
  if (typeof err?.code !== "string" || typeof err.message !== "string") return e;
  const base = { originalCode: err.code, originalMessage: err.message };
  const listed = err.message.split("constraint failed: ").at(1)?.split(", ");
  switch (err.code) {
    case "SQLITE_CONSTRAINT_UNIQUE":
    case "SQLITE_CONSTRAINT_PRIMARYKEY":
      return new DriverAdapterError({
        ...base,
        kind: "UniqueConstraintViolation",
        constraint: listed ? { fields: listed.map((c) => c.split(".").pop()!) } : undefined,
      });
    case "SQLITE_CONSTRAINT_NOTNULL":
      return new DriverAdapterError({ ...base, kind: "NullConstraintViolation", constraint: listed ? { fields: listed.map((c) => c.split(".").pop()!) } : undefined });
    case "SQLITE_CONSTRAINT_FOREIGNKEY":
    case "SQLITE_CONSTRAINT_TRIGGER":
      return new DriverAdapterError({ ...base, kind: "ForeignKeyConstraintViolation", constraint: { foreignKey: {} } });
  }
  const raw = typeof err.rawCode === "number" ? err.rawCode : undefined;
  if (err.code.startsWith("SQLITE_BUSY") || (raw !== undefined && (raw & 0xff) === SQLITE_BUSY)) return new DriverAdapterError({ ...base, kind: "SocketTimeout" });
  if (err.message.startsWith("no such table")) return new DriverAdapterError({ ...base, kind: "TableDoesNotExist", table: err.message.split(": ").at(1) });
  if (err.message.startsWith("no such column")) return new DriverAdapterError({ ...base, kind: "ColumnNotFound", column: err.message.split(": ").at(1) });
  if (err.message.includes("has no column named ")) return new DriverAdapterError({ ...base, kind: "ColumnNotFound", column: err.message.split("has no column named ").at(1) });
  return new DriverAdapterError({ ...base, kind: "sqlite", extendedCode: raw ?? 1, message: err.message });
}
