// Starts a real Toolgate (real HTTP on an ephemeral port, real database) for a test file.
// Nothing of our own is mocked; only the clock can be injected to make expiry exact.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { SignJWT } from "jose";
import { ADMIN_AUDIENCE } from "../../src/modules/tokens";
import { loadConfig, type Config } from "../../src/config";
import { createLogger } from "../../src/shared/logger";
import { boot } from "../../src/boot";
import { createApp, type App, type Services } from "../../src/app";
import { createExpressServer } from "../../src/http-server";
import type { Clock } from "../../src/shared/clock";
import { createTestDatabase, type TestDatabase } from "./database";

export const ADMIN_EMAIL = "owner@example.test";
export const ADMIN_PASSWORD = "correct horse battery staple";

export interface StartOptions {
  clock?: Clock;
  env?: Record<string, string>;
  /** Skip creating the first workspace and owner. */
  empty?: boolean;
  /** Collects the server's log lines (parsed JSON, level info and above) instead of discarding them. */
  logs?: Record<string, unknown>[];
  /** Where the app finds its shipped migrations (default: prisma/migrations). */
  migrationsRoot?: string;
  /** TOOLGATE_PUBLIC_URL from the listening port (e.g. http://localhost:<port>: WebAuthn needs a host name, not an IP). */
  publicUrl?: (port: number) => string;
}

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  token?: string;
  basic?: [string, string];
  json?: unknown;
  form?: Record<string, string>;
  headers?: Record<string, string>;
}

export class Harness {
  constructor(
    readonly url: string,
    readonly toolgate: App,
    readonly config: Config,
    readonly database: TestDatabase,
    private readonly server: Server,
    /** The first workspace and its owner (unless started empty). */
    readonly workspaceId: string,
    readonly ownerId: string,
    readonly adminToken: string,
  ) {}

  get services(): Services {
    return this.toolgate.services;
  }

  get db() {
    return this.toolgate.services.db;
  }

  async request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<HttpResult<T>> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    if (opts.basic) headers.authorization = `Basic ${Buffer.from(`${opts.basic[0]}:${opts.basic[1]}`).toString("base64")}`;
    let body: string | undefined;
    if (opts.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(opts.json);
    } else if (opts.form) {
      headers["content-type"] = "application/x-www-form-urlencoded";
      body = new URLSearchParams(opts.form).toString();
    }
    const res = await fetch(this.url + path, { method, headers, body, redirect: "manual" });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  /** Shorthand for an admin call with the owner's token. */
  admin<T = any>(method: string, path: string, json?: unknown): Promise<HttpResult<T>> {
    return this.request<T>(method, path, { token: this.adminToken, json });
  }

  /** An admin JWT signed by this server's own key but carrying no tenant claim. */
  async adminTokenWithoutTenant(): Promise<string> {
    const { kid, key } = this.services.keys.signingKey();
    const now = Math.floor(this.services.clock.now().getTime() / 1000);
    return new SignJWT({ sub: this.ownerId })
      .setProtectedHeader({ alg: "ES256", typ: "JWT", kid })
      .setIssuer(this.config.publicUrl)
      .setAudience(ADMIN_AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(key);
  }

  async login(email: string, password: string, workspaceId?: string): Promise<string> {
    const r = await this.request("POST", "/svc/uflow/auth/login", { json: { email, password, workspace_id: workspaceId } });
    if (r.status !== 200) throw new Error(`login failed: ${r.status} ${r.text}`);
    return r.body.access_token;
  }

  /** Creates another workspace with its own owner (for isolation tests). */
  async createWorkspace(email: string, password = ADMIN_PASSWORD): Promise<{ workspaceId: string; userId: string; token: string }> {
    const { workspace_id, user_id } = await this.services.tenancy.bootstrap({ email, password, workspaceName: `ws ${email}` });
    return { workspaceId: workspace_id, userId: user_id, token: await this.login(email, password, workspace_id) };
  }

  /**
   * A user of the first workspace who holds no membership there (created, then removed): users are
   * private to one workspace, so this is the only kind of user a membership can be created for.
   */
  async userWithoutMembership(email: string): Promise<string> {
    const created = await this.admin("POST", `/uflow/v2/tenants/${this.workspaceId}/users`, { email, username: email.split("@")[0] });
    if (created.status !== 201) throw new Error(`creating ${email}: ${created.status} ${created.text}`);
    const removed = await this.admin("DELETE", `/uflow/v2/tenants/${this.workspaceId}/memberships/${created.body.id}`);
    if (removed.status !== 204) throw new Error(`removing ${email}'s membership: ${removed.status} ${removed.text}`);
    return created.body.id;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections?.();
    await this.toolgate.close();
    await this.db.$disconnect();
    await this.database.drop();
  }
}

export async function startToolgate(opts: StartOptions = {}): Promise<Harness> {
  const database = await createTestDatabase();
  // The server main.ts runs (requests born with the app's prototypes, src/http-server.ts).
  const { server, serve } = createExpressServer();
  // As main.ts sets it: with Node's 5 s default, a test that pauses between requests (seeding rows
  // directly) can send its next request on a connection the server is closing (ECONNRESET).
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    PORT: String(port),
    TOOLGATE_PUBLIC_URL: opts.publicUrl?.(port) ?? url,
    DATABASE_URL: database.url,
    TOOLGATE_DATA_DIR: database.dataDir,
    TOOLGATE_MASTER_KEY: randomBytes(32).toString("base64url"),
    TOOLGATE_LOG_LEVEL: (process.env.TEST_LOG_LEVEL as never) ?? "silent",
    ...opts.env,
  });
  const { db, masterKey } = await boot(config);
  const logs = opts.logs;
  const logger = logs
    ? createLogger("info", new Writable({ write: (chunk, _enc, done) => (logs.push(JSON.parse(String(chunk))), done()) }))
    : createLogger(config.logLevel);
  const toolgate = await createApp({ config, db, masterKey, logger, clock: opts.clock, migrationsRoot: opts.migrationsRoot });
  await toolgate.start();
  serve(toolgate.app);
  let workspaceId = "";
  let ownerId = "";
  let adminToken = "";
  const harness = () => new Harness(url, toolgate, config, database, server, workspaceId, ownerId, adminToken);
  if (!opts.empty) {
    const created = await toolgate.services.tenancy.bootstrap({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD, workspaceName: "Acme" });
    workspaceId = created.workspace_id;
    ownerId = created.user_id;
    adminToken = await harness().login(ADMIN_EMAIL, ADMIN_PASSWORD);
  }
  return harness();
}
