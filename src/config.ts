// The only reader of process.env. Every variable is validated once, here; a bad value stops
// start-up with one message naming every bad variable.
import { isIP } from "node:net";
import { z } from "zod";
import { REFRESH_GRACE_DEFAULT_S } from "./modules/signin/refresh-tokens";

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

const envSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    HOST: optionalString,
    TOOLGATE_PUBLIC_URL: optionalString.pipe(
      z
        .string()
        .url()
        .refine((u) => /^https?:\/\//.test(u), "must be an http(s) URL")
        .refine((u) => !u.includes("?") && !u.includes("#"), "must not contain a query or fragment")
        // The issuer and every URL are built as publicUrl + "/path": a trailing slash would give
        // "//svc/..." (404) and an issuer that does not match what clients configured.
        .transform((u) => u.replace(/\/+$/, ""))
        .optional(),
    ),
    DATABASE_URL: optionalString.pipe(
      z
        .string()
        .refine((u) => /^(file:|postgres(ql)?:\/\/)/.test(u), "must start with file: or postgresql://")
        .optional(),
    ),
    TOOLGATE_DATA_DIR: optionalString,
    TOOLGATE_ADMIN_EMAIL: optionalString.pipe(z.string().email().optional()),
    TOOLGATE_ADMIN_PASSWORD: optionalString.pipe(z.string().min(8, "must be at least 8 characters").optional()),
    TOOLGATE_WORKSPACE_NAME: optionalString,
    TOOLGATE_MASTER_KEY: optionalString.pipe(
      z
        .string()
        .refine((k) => decodeMasterKey(k) !== null, "must be 32 bytes as base64url/base64 or 64 hex characters")
        .optional(),
    ),
    TOOLGATE_LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
    // Exact origins (scheme://host[:port], lower case, comma-separated) whose pages may call /graphql
    // from a browser (CORS, never with credentials); empty or unset = CORS off (src/graphql/server.ts).
    TOOLGATE_GRAPHQL_CORS_ORIGINS: z
      .string()
      .default("")
      .transform((v) => v.split(",").map((o) => o.trim()).filter((o) => o !== ""))
      .pipe(
        z.array(
          z
            .string()
            .refine(
              (o) => URL.canParse(o) && /^https?:$/.test(new URL(o).protocol) && new URL(o).origin === o,
              "must be a comma-separated list of origins such as https://cockpit.example.com (lower-case http(s) scheme and host, optional non-default port; no path, trailing slash or wildcard)",
            ),
        ),
      ),
    // The reverse proxies in front of Toolgate, whose X-Forwarded-For is believed for the client
    // address (the login throttle counts per address): a number of hops, or a comma-separated list
    // of addresses/CIDRs and the names loopback, linklocal, uniquelocal. Unset: the socket's peer.
    TOOLGATE_TRUST_PROXY: optionalString.pipe(
      z
        .string()
        .refine(
          (v) => /^([1-9]|10)$/.test(v) || v.split(",").every((p) => isProxyAddress(p.trim())),
          "must be a number of proxy hops (1-10) or a comma-separated list of addresses/CIDRs (or loopback, linklocal, uniquelocal)",
        )
        .optional(),
    ),
    // GET /metrics (Prometheus) answers only with this bearer token; unset = /metrics is off (404).
    // docs/decisions/0023-metrics-endpoint.md.
    TOOLGATE_METRICS_TOKEN: optionalString.pipe(
      z
        .string()
        .min(32, "must be at least 32 characters (e.g. openssl rand -hex 32)")
        .max(512)
        .refine((t) => /^[A-Za-z0-9\-._~+/]+=*$/.test(t), "must use only letters, digits and -._~+/ (a bearer token, RFC 6750 §2.1)")
        .optional(),
    ),
    TOOLGATE_CACHE_POLL_MS: z.coerce.number().int().min(50).max(60000).default(500),
    TOOLGATE_CACHE_MAX_ENTRIES: z.coerce.number().int().min(100).max(10_000_000).default(50_000),
    TOOLGATE_CACHE_STALE_MS: z.coerce.number().int().min(100).max(60000).default(3000),
    // Mounts GET /bench/baseline (the benchmark's reference route); off unless explicitly "1"/"true".
    TOOLGATE_BENCH_ROUTES: z.enum(["", "0", "1", "true", "false"]).default("0").transform((v) => v === "1" || v === "true"),
    // Rescan of an MCP server: one deadline for the whole scan (initialize + every tools/list page)
    // and a cap on the bytes read from the upstream, so a slow or hostile server cannot hold us.
    TOOLGATE_SCAN_TIMEOUT_MS: z.coerce.number().int().min(50).max(300000).default(15000),
    TOOLGATE_SCAN_MAX_BYTES: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(4 * 1024 * 1024),
    // Rescan connects to a URL a workspace administrator chose: loopback, private (RFC 1918, ULA),
    // link-local (cloud metadata), CGNAT and similar addresses are refused unless this is "1"/"true".
    TOOLGATE_SCAN_ALLOW_PRIVATE: z.enum(["", "0", "1", "true", "false"]).default("0").transform((v) => v === "1" || v === "true"),
    // How long after a refresh the token it replaced may be presented again, by the same client, to
    // get the same successor back (a retry after a lost answer); 0 turns it off (docs/sign-in.md).
    // Unset or empty means the default (an empty value must not read as 0, which turns it off).
    // Server processes on the one port (node:cluster), for PostgreSQL deployments; each keeps its
    // own caches, invalidated through LISTEN/NOTIFY as between instances. SQLite: 1 (refused below).
    TOOLGATE_WORKERS: z.coerce.number().int().min(1).max(64).default(1),
    TOOLGATE_REFRESH_GRACE_SECONDS: optionalString.pipe(z.coerce.number<string>().int().min(0).max(60).optional()).transform((v) => v ?? REFRESH_GRACE_DEFAULT_S),
    // Dynamic client registration (POST /oauth/register) is open to anyone: registrations per client
    // address per window (429 with Retry-After beyond), and how long a registration that never
    // connected to any server is kept (0 = forever).
    TOOLGATE_REGISTRATION_RATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(20),
    TOOLGATE_REGISTRATION_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(3600),
    TOOLGATE_REGISTRATION_IDLE_DAYS: z.coerce.number().int().min(0).max(3650).default(30),
    // Client ID Metadata Documents: the fetch deadline, and a PEM file of extra CA certificates
    // trusted for the documents' https servers (a private CA; the system's roots stay trusted).
    TOOLGATE_CIMD_TIMEOUT_MS: z.coerce.number().int().min(100).max(30000).default(3000),
    // Anyone can make Toolgate fetch a URL by naming it as client_id at /oauth/authorize: document
    // fetches (not reuses of a fresh one) per client address per minute; beyond it, 429.
    TOOLGATE_CIMD_FETCH_RATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(30),
    TOOLGATE_OUTBOUND_CA_FILE: optionalString,
    // Browser sessions of the sign-in (docs/openid-provider.md "Sessions"): a session ends after this
    // long without use, and this long after its sign-in however active.
    TOOLGATE_SESSION_IDLE_SECONDS: z.coerce.number().int().min(60).max(30 * 86_400).default(8 * 3600),
    TOOLGATE_SESSION_MAX_AGE_SECONDS: z.coerce.number().int().min(60).max(90 * 86_400).default(7 * 86_400),
    // The audit trail (docs/audit-and-integrations.md): days an event is kept (0 = forever; older
    // ones are deleted with a signed checkpoint), how often hot-path counts are written as events,
    // and the JSON-lines stream of every event for log shippers: unset (off), "stdout", or a file path.
    TOOLGATE_AUDIT_RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500).default(365),
    TOOLGATE_AUDIT_FLUSH_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
    TOOLGATE_AUDIT_LOG_STREAM: optionalString,
    // Webhooks (/svc/exsvc): whether this instance delivers (several may), the delivery deadline,
    // attempts before the dead-letter list, the first retry delay (doubling, with jitter) and its
    // cap, and whether endpoints may be on private networks (off: SSRF).
    TOOLGATE_WEBHOOK_WORKER: z.enum(["", "0", "1", "true", "false"]).default("1").transform((v) => v !== "0" && v !== "false"),
    TOOLGATE_WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
    TOOLGATE_WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(8),
    TOOLGATE_WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(10).max(3_600_000).default(30_000),
    TOOLGATE_WEBHOOK_RETRY_MAX_MS: z.coerce.number().int().min(10).max(86_400_000).default(3_600_000),
    TOOLGATE_WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(600_000).default(30_000),
    TOOLGATE_WEBHOOK_ALLOW_PRIVATE: z.enum(["", "0", "1", "true", "false"]).default("0").transform((v) => v === "1" || v === "true"),
  })
  .superRefine((env, ctx) => {
    if (env.DATABASE_URL?.startsWith("postgres") && !env.TOOLGATE_MASTER_KEY) {
      ctx.addIssue({
        code: "custom",
        path: ["TOOLGATE_MASTER_KEY"],
        message: "is required with a PostgreSQL DATABASE_URL (every instance must share it)",
      });
    }
    if (env.TOOLGATE_WORKERS > 1 && !env.DATABASE_URL?.startsWith("postgres")) {
      ctx.addIssue({
        code: "custom",
        path: ["TOOLGATE_WORKERS"],
        message:
          "more than one worker needs PostgreSQL (DATABASE_URL=postgresql://...): an embedded SQLite database is served by exactly one server process (the server lock in the data folder); unset it or set it to 1",
      });
    }
    if (env.TOOLGATE_SESSION_IDLE_SECONDS > env.TOOLGATE_SESSION_MAX_AGE_SECONDS) {
      ctx.addIssue({ code: "custom", path: ["TOOLGATE_SESSION_IDLE_SECONDS"], message: "must not exceed TOOLGATE_SESSION_MAX_AGE_SECONDS" });
    }
    if (Boolean(env.TOOLGATE_ADMIN_EMAIL) !== Boolean(env.TOOLGATE_ADMIN_PASSWORD)) {
      ctx.addIssue({
        code: "custom",
        path: [env.TOOLGATE_ADMIN_EMAIL ? "TOOLGATE_ADMIN_PASSWORD" : "TOOLGATE_ADMIN_EMAIL"],
        message: "TOOLGATE_ADMIN_EMAIL and TOOLGATE_ADMIN_PASSWORD go together",
      });
    }
  });

function isProxyAddress(p: string): boolean {
  if (p === "loopback" || p === "linklocal" || p === "uniquelocal") return true;
  const [addr = "", bits, ...rest] = p.split("/");
  if (rest.length > 0 || isIP(addr) === 0) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (isIP(addr) === 4 ? 32 : 128));
}

export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  readonly port: number;
  readonly host: string | undefined;
  /** The issuer and the base of every URL the service returns, as configured minus any trailing slash. */
  readonly publicUrl: string;
  readonly database: { readonly kind: "sqlite" | "postgresql"; readonly url: string };
  readonly dataDir: string;
  readonly bootstrapAdmin: { readonly email: string; readonly password: string; readonly workspaceName: string } | undefined;
  /** 32 bytes; undefined means "generate or load from the data folder" (embedded mode only). */
  readonly masterKey: Buffer | undefined;
  readonly logLevel: LogLevel;
  /** Origins allowed to call /graphql from a browser (CORS, exact match, never credentials); empty = CORS off. */
  readonly graphqlCorsOrigins: readonly string[];
  /** SQLite only: how often the server checks whether another process (the CLI) wrote the file. */
  readonly cachePollMs: number;
  /** Bound of each hot-path cache (entries; least recently used ones are evicted). */
  readonly cacheMaxEntries: number;
  /** While the PostgreSQL invalidation listener is down, cached entries older than this are reloaded before use. */
  readonly cacheStaleMs: number;
  /** Mount the benchmark's baseline route (npm run bench sets TOOLGATE_BENCH_ROUTES=1). */
  readonly benchRoutes: boolean;
  /**
   * Bounds of one MCP rescan: overall deadline, bytes read from the upstream, and whether it may
   * connect to loopback/private/link-local addresses (off by default: SSRF).
   */
  readonly scan: { readonly timeoutMs: number; readonly maxBytes: number; readonly allowPrivateNetworks: boolean };
  /** Express `trust proxy`: hops or proxy addresses whose X-Forwarded-For gives req.ip; undefined = the socket's peer. */
  readonly trustProxy: number | string | undefined;
  /** Bearer token of GET /metrics; undefined = /metrics is not served. */
  readonly metricsToken: string | undefined;
  /** Retry grace of a rotated refresh token, in seconds (0..60): see docs/sign-in.md "Crash-safe rotation". */
  readonly refreshGraceSeconds: number;
  /** Dynamic client registration: per-address rate limit, and idle registrations' lifetime (days, 0 = kept). */
  readonly registration: { readonly perAddress: number; readonly windowMs: number; readonly idleDays: number };
  /** CIMD document fetches: deadline, and a PEM file of extra trusted CAs (path, read at start-up). */
  readonly cimd: { readonly timeoutMs: number; readonly caFile: string | undefined; readonly fetchesPerAddressPerMinute: number };
  /** Server processes sharing the port (node:cluster); more than 1 only with PostgreSQL (src/cluster.ts). */
  readonly workers: number;
  /** Browser sessions: idle timeout and absolute lifetime, in seconds. */
  readonly sessions: { readonly idleSeconds: number; readonly maxAgeSeconds: number };
  /** The audit trail: retention in days (0 = forever), counters' flush interval, the JSON-lines stream ("stdout", a file path, or off). */
  readonly audit: { readonly retentionDays: number; readonly flushMs: number; readonly logStream: string | undefined };
  /** Webhook delivery (docs/audit-and-integrations.md). */
  readonly webhooks: {
    readonly worker: boolean;
    readonly timeoutMs: number;
    readonly maxAttempts: number;
    readonly retryBaseMs: number;
    readonly retryMaxMs: number;
    readonly pollMs: number;
    readonly allowPrivateNetworks: boolean;
  };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** Accepts 64 hex characters or 32 bytes of base64/base64url. */
export function decodeMasterKey(text: string): Buffer | null {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, "hex");
  const b = Buffer.from(text.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  return b.length === 32 ? b : null;
}

export function loadConfig(env: Record<string, string | undefined>): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${String(i.path[0] ?? "environment")}: ${i.message}`);
    throw new ConfigError([...new Set(problems)]);
  }
  const e = parsed.data;
  const dataDir = e.TOOLGATE_DATA_DIR ?? "./data";
  const dbUrl = e.DATABASE_URL ?? `file:${dataDir}/toolgate.db`;
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    publicUrl: e.TOOLGATE_PUBLIC_URL ?? `http://localhost:${e.PORT}`,
    database: Object.freeze({ kind: dbUrl.startsWith("file:") ? ("sqlite" as const) : ("postgresql" as const), url: dbUrl }),
    dataDir,
    bootstrapAdmin:
      e.TOOLGATE_ADMIN_EMAIL && e.TOOLGATE_ADMIN_PASSWORD
        ? Object.freeze({
            email: e.TOOLGATE_ADMIN_EMAIL.toLowerCase(),
            password: e.TOOLGATE_ADMIN_PASSWORD,
            workspaceName: e.TOOLGATE_WORKSPACE_NAME ?? "Default workspace",
          })
        : undefined,
    masterKey: e.TOOLGATE_MASTER_KEY ? decodeMasterKey(e.TOOLGATE_MASTER_KEY)! : undefined,
    logLevel: e.TOOLGATE_LOG_LEVEL,
    graphqlCorsOrigins: Object.freeze(e.TOOLGATE_GRAPHQL_CORS_ORIGINS),
    cachePollMs: e.TOOLGATE_CACHE_POLL_MS,
    cacheMaxEntries: e.TOOLGATE_CACHE_MAX_ENTRIES,
    cacheStaleMs: e.TOOLGATE_CACHE_STALE_MS,
    benchRoutes: e.TOOLGATE_BENCH_ROUTES,
    scan: Object.freeze({ timeoutMs: e.TOOLGATE_SCAN_TIMEOUT_MS, maxBytes: e.TOOLGATE_SCAN_MAX_BYTES, allowPrivateNetworks: e.TOOLGATE_SCAN_ALLOW_PRIVATE }),
    refreshGraceSeconds: e.TOOLGATE_REFRESH_GRACE_SECONDS,
    registration: Object.freeze({
      perAddress: e.TOOLGATE_REGISTRATION_RATE_LIMIT,
      windowMs: e.TOOLGATE_REGISTRATION_RATE_WINDOW_SECONDS * 1000,
      idleDays: e.TOOLGATE_REGISTRATION_IDLE_DAYS,
    }),
    cimd: Object.freeze({ timeoutMs: e.TOOLGATE_CIMD_TIMEOUT_MS, caFile: e.TOOLGATE_OUTBOUND_CA_FILE, fetchesPerAddressPerMinute: e.TOOLGATE_CIMD_FETCH_RATE_LIMIT }),
    workers: e.TOOLGATE_WORKERS,
    sessions: Object.freeze({ idleSeconds: e.TOOLGATE_SESSION_IDLE_SECONDS, maxAgeSeconds: e.TOOLGATE_SESSION_MAX_AGE_SECONDS }),
    audit: Object.freeze({ retentionDays: e.TOOLGATE_AUDIT_RETENTION_DAYS, flushMs: e.TOOLGATE_AUDIT_FLUSH_SECONDS * 1000, logStream: e.TOOLGATE_AUDIT_LOG_STREAM }),
    webhooks: Object.freeze({
      worker: e.TOOLGATE_WEBHOOK_WORKER,
      timeoutMs: e.TOOLGATE_WEBHOOK_TIMEOUT_MS,
      maxAttempts: e.TOOLGATE_WEBHOOK_MAX_ATTEMPTS,
      retryBaseMs: e.TOOLGATE_WEBHOOK_RETRY_BASE_MS,
      retryMaxMs: Math.max(e.TOOLGATE_WEBHOOK_RETRY_MAX_MS, e.TOOLGATE_WEBHOOK_RETRY_BASE_MS),
      pollMs: e.TOOLGATE_WEBHOOK_POLL_MS,
      allowPrivateNetworks: e.TOOLGATE_WEBHOOK_ALLOW_PRIVATE,
    }),
    trustProxy: e.TOOLGATE_TRUST_PROXY === undefined ? undefined : /^\d+$/.test(e.TOOLGATE_TRUST_PROXY) ? Number(e.TOOLGATE_TRUST_PROXY) : e.TOOLGATE_TRUST_PROXY,
    metricsToken: e.TOOLGATE_METRICS_TOKEN,
  });
}
