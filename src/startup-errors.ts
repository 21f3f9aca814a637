// Start-up failures an operator causes (a bad variable, a database that is down, missing or refuses
// the login, a data folder that cannot be written) explained in one or two lines naming the cause
// and the fix, instead of a Prisma stack trace. Shared by the server (src/main.ts) and the CLI.
// Anything not recognised here is a bug and keeps its stack trace.
import { ConfigError } from "./config";
import { SqliteDriverError } from "./storage/sqlite-driver";

export interface Explained {
  message: string;
  /** 2: the configuration is wrong; 1: the environment (database, files) is not as needed. */
  status: number;
}

/** The cause the Prisma driver adapters attach to a failed connection (meta.driverAdapterError.cause). */
interface AdapterCause {
  kind?: string;
  originalMessage?: string;
  host?: string;
  port?: number;
  db?: string;
}

function adapterCause(e: unknown): AdapterCause | undefined {
  const meta = (e as { meta?: { driverAdapterError?: { cause?: AdapterCause } } } | null)?.meta;
  return meta?.driverAdapterError?.cause;
}

/** The parts of a PostgreSQL URL worth naming, never its password. */
function describeUrl(url: string | undefined): { host: string; port: string; user: string; database: string; shown: string } {
  try {
    const u = new URL(url ?? "");
    const shown = u.password ? url!.replace(`:${u.password}@`, ":***@") : url!;
    return { host: u.hostname, port: u.port || "5432", user: decodeURIComponent(u.username) || "postgres", database: decodeURIComponent(u.pathname.slice(1)) || "postgres", shown };
  } catch {
    return { host: "?", port: "5432", user: "postgres", database: "postgres", shown: "DATABASE_URL" };
  }
}

export function explainStartupError(e: unknown, env: Record<string, string | undefined>): Explained | undefined {
  if (e instanceof ConfigError) return { message: e.message, status: 2 };
  if (e instanceof SqliteDriverError) return { message: e.message, status: 1 };
  const cause = adapterCause(e);
  if (cause) {
    const url = describeUrl(env.DATABASE_URL);
    switch (cause.kind) {
      case "DatabaseNotReachable":
        return {
          message:
            `Cannot reach the PostgreSQL server at ${url.host}:${url.port} (DATABASE_URL=${url.shown}).\n` +
            `Start PostgreSQL there, or fix the host and port in DATABASE_URL.`,
          status: 1,
        };
      case "DatabaseDoesNotExist":
        return {
          message:
            `The database "${cause.db ?? url.database}" does not exist on the PostgreSQL server at ${url.host}:${url.port}.\n` +
            `Create it (createdb -h ${url.host} -p ${url.port} -U ${url.user} ${cause.db ?? url.database}), or fix the database name in DATABASE_URL.`,
          status: 1,
        };
      case "DatabaseAccessDenied":
      case "AuthenticationFailed":
        return {
          message:
            `PostgreSQL at ${url.host}:${url.port} refused the login of "${url.user}": ${cause.originalMessage ?? "access denied"}.\n` +
            `Fix the user and password in DATABASE_URL (postgresql://USER:PASSWORD@HOST:PORT/DATABASE), or create that role.`,
          status: 1,
        };
      default:
        return {
          message: `The database refused to start Toolgate: ${cause.originalMessage ?? cause.kind ?? "unknown error"} (DATABASE_URL=${url.shown}).`,
          status: 1,
        };
    }
  }
  const fsError = e as NodeJS.ErrnoException | null;
  if (fsError?.syscall && fsError.path && ["EACCES", "EPERM", "EROFS", "ENOTDIR"].includes(fsError.code ?? "")) {
    return {
      message:
        `Cannot write ${fsError.path} (${fsError.code}): the data folder must be writable by this user.\n` +
        `Fix its permissions, or point TOOLGATE_DATA_DIR (and DATABASE_URL=file:...) at a writable folder.`,
      status: 1,
    };
  }
  return undefined;
}

/** A listen() failure: the port is taken or not ours to bind. */
export function explainListenError(e: NodeJS.ErrnoException, port: number, host: string | undefined): string | undefined {
  const where = `${host ?? "all interfaces"}, port ${port}`;
  if (e.code === "EADDRINUSE") {
    return `Port ${port} is already in use (EADDRINUSE on ${where}): another Toolgate or another program listens there.\nStop it, or start on a free port: PORT=${port + 1} npm start`;
  }
  if (e.code === "EACCES") return `Not allowed to listen on ${where} (EACCES): ports below 1024 need privileges.\nUse a higher port, e.g. PORT=8080.`;
  if (e.code === "EADDRNOTAVAIL") return `HOST=${host} is not an address of this machine (EADDRNOTAVAIL).\nSet HOST to one of its addresses, or leave it unset to listen on all interfaces.`;
  return undefined;
}
