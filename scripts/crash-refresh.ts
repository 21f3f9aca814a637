// Crash campaign for refresh rotation (docs/sign-in.md "Crash-safe rotation"): kill -9 a real
// server process while clients refresh, restart it, let every client retry with the last refresh
// token it holds, and count what was lost.
//
//   npx tsx scripts/crash-refresh.ts [--cycles 8] [--families 6] [--db sqlite,postgresql]
//                                    [--pg postgresql://postgres@127.0.0.1:5432/postgres] [--grace <s>]
//
// Per database: a fresh database (a temporary SQLite file; a new PostgreSQL database on --pg,
// default $TEST_DATABASE_URL or the local server, dropped afterwards), one server process
// (src/main.ts, loopback only), a resource server, a client, a user and `--families` signed-in
// token families. Each cycle: every family refreshes in a loop (bounded), the server is killed
// with SIGKILL after a random 20-400 ms, the database is inspected, the server restarted, and each
// family retries with the last refresh token it holds, then refreshes once more. Counted:
//   answers lost       refreshes in flight when the server died (the client kept its old token)
//   committed, lost    of those, the ones whose rotation had committed (the retry needs the grace)
//   half-written       families left without a current token (rotated, successor missing)
//   revoked            families revoked by the retry (reuse detected) -> lost for the user
//   lost               families whose retry or next refresh failed (target: 0)
//   max retry delay    longest time from a committed rotation to the client's retry: the retry
//                      is answered only within the grace, so a restart slower than the grace
//                      loses those families (raise TOOLGATE_REFRESH_GRACE_SECONDS above it)
// A lost family is replaced by a new sign-in, so every cycle starts with `--families` live ones.
// The grace is the server's default unless --grace sets TOOLGATE_REFRESH_GRACE_SECONDS.
import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { join } from "node:path";
import Database from "libsql";
import pg from "pg";
import { createTestDatabase, type TestDatabase } from "../test/helpers/database";
import { ROOT, freePort } from "../test/helpers/process";
import { setUpSignIn, signInWithCode, tokenRequest, type CodeFlow } from "../test/helpers/signin-flow";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ""), process.argv[i + 1] ?? "");
const CYCLES = Number(args.get("cycles") ?? 8);
const FAMILIES = Number(args.get("families") ?? 6);
const KINDS = (args.get("db") ?? "sqlite,postgresql").split(",") as Array<"sqlite" | "postgresql">;
const PG_URL = args.get("pg") ?? process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const GRACE = args.get("grace");
/** Refreshes one family sends per cycle at most (the kill normally ends the loop long before). */
const MAX_REFRESHES_PER_CYCLE = 2000;
const REDIRECT = "http://127.0.0.1/callback";
const ADMIN = { email: "owner@crash.test", password: "crash-owner-password" };
const USER = { email: "user@crash.test", password: "crash-user-password" };
const PUBLIC_URL = "https://auth.crash.test";

interface Figures {
  database: string;
  cycles: number;
  refreshes: number;
  answersLost: number;
  committedLost: number;
  halfWritten: number;
  revoked: number;
  lost: number;
  maxRestartMs: number;
  /** Longest time from the rotation (its rotatedAt) to the retry, for refreshes committed before the kill (must stay under the grace). */
  maxRetryDelayMs: number;
}

/** The database of one campaign, and its refresh-token rows read directly while the server is dead. */
interface TokenRow {
  tokenHash: string;
  familyId: string;
  rotatedAt: Date | null;
  revoked: boolean;
}
interface CampaignDb extends TestDatabase {
  rows(): Promise<TokenRow[]>;
}

/** A DateTime column as either driver returns it (PostgreSQL: Date; SQLite: ISO text or epoch ms). */
const dateOf = (v: unknown): Date | null => (v === null || v === undefined ? null : v instanceof Date ? v : new Date(typeof v === "string" && /^\d+$/.test(v) ? Number(v) : (v as string | number)));

async function createDb(kind: "sqlite" | "postgresql"): Promise<CampaignDb> {
  // test/helpers/database.ts makes a temporary SQLite file, or a fresh PostgreSQL database when TEST_DATABASE_URL is set.
  const saved = process.env.TEST_DATABASE_URL;
  if (kind === "sqlite") delete process.env.TEST_DATABASE_URL;
  else process.env.TEST_DATABASE_URL = PG_URL;
  const db = await createTestDatabase().finally(() => {
    if (saved === undefined) delete process.env.TEST_DATABASE_URL;
    else process.env.TEST_DATABASE_URL = saved;
  });
  const select = `SELECT "tokenHash", "familyId", "rotatedAt", "revokedAt" FROM "RefreshToken"`;
  type Raw = { tokenHash: string; familyId: string; rotatedAt: unknown; revokedAt: unknown };
  const toRow = (r: Raw): TokenRow => ({ tokenHash: r.tokenHash, familyId: r.familyId, rotatedAt: dateOf(r.rotatedAt), revoked: r.revokedAt !== null });
  async function rows(): Promise<TokenRow[]> {
    if (db.kind === "sqlite") {
      const file = new Database(db.url.replace(/^file:/, ""), { readonly: true });
      try {
        return (file.prepare(select).all() as Raw[]).map(toRow);
      } finally {
        file.close();
      }
    }
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      return (await c.query<Raw>(select)).rows.map(toRow);
    } finally {
      await c.end();
    }
  }
  return { ...db, rows };
}

interface RunningServer {
  url: string;
  child: ChildProcess;
}

/**
 * src/main.ts in ONE process on a loopback port: `node --import tsx`, not the tsx CLI (which runs
 * the server in a child process of its own, which a SIGKILL of the CLI would leave running).
 */
async function startServer(env: Record<string, string>): Promise<RunningServer> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("TOOLGATE_") && k !== "DATABASE_URL" && k !== "PORT"));
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, "src/main.ts")], { cwd: ROOT, env: { ...inherited, PORT: String(port), HOST: "127.0.0.1", ...env } });
    let out = "";
    child.stdout!.on("data", (d) => (out += d));
    child.stderr!.on("data", (d) => (out += d));
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) {
        if (/EADDRINUSE/.test(out) && attempt < 5) break; // another process took the port: try another
        throw new Error(`server exited with ${child.exitCode}:\n${out}`);
      }
      try {
        if (out.includes("listening") && (await fetch(`${url}/healthz`)).ok) return { url, child };
      } catch {
        /* not up yet */
      }
      if (Date.now() > deadline) {
        await stopServer(child, "SIGKILL");
        throw new Error(`server did not start:\n${out}`);
      }
      await sleep(50);
    }
  }
}

/** Sends `signal` and waits until the process has exited (at once if it already has). */
async function stopServer(child: ChildProcess, signal: "SIGKILL" | "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill(signal);
  await exited;
}

const sha256 = (s: string) => createHash("sha256").update(s).digest("base64url");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One signed-in client's view of its family: the last refresh token it holds. */
interface Family {
  token: string;
  /** The server died before answering the last refresh (the client still holds the token it sent). */
  answerLost: boolean;
}

async function campaign(kind: "sqlite" | "postgresql"): Promise<Figures> {
  const db = await createDb(kind);
  const env: Record<string, string> = {
    TOOLGATE_PUBLIC_URL: PUBLIC_URL,
    DATABASE_URL: db.url,
    TOOLGATE_DATA_DIR: db.dataDir,
    TOOLGATE_MASTER_KEY: randomBytes(32).toString("base64url"),
    TOOLGATE_ADMIN_EMAIL: ADMIN.email,
    TOOLGATE_ADMIN_PASSWORD: ADMIN.password,
    TOOLGATE_LOG_LEVEL: "error",
    ...(GRACE === undefined ? {} : { TOOLGATE_REFRESH_GRACE_SECONDS: GRACE }),
  };
  const figures: Figures = { database: kind, cycles: CYCLES, refreshes: 0, answersLost: 0, committedLost: 0, halfWritten: 0, revoked: 0, lost: 0, maxRestartMs: 0, maxRetryDelayMs: 0 };
  let server = await startServer(env);
  try {
    const login = await fetch(`${server.url}/svc/uflow/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(ADMIN) });
    const adminToken = ((await login.json()) as { access_token: string }).access_token;
    const setup = await setUpSignIn(server.url, adminToken, { name: "Crash", scopes: ["notes:read"], users: [USER], redirectUri: REDIRECT });
    const flow = (): CodeFlow => ({ publicUrl: PUBLIC_URL, serverUrl: server.url, ...setup, redirectUri: REDIRECT, scope: "notes:read", ...USER });
    const client = { clientId: setup.clientId, clientSecret: setup.clientSecret };
    const signIn = async (): Promise<Family> => ({ token: (await signInWithCode(flow())).refresh_token as string, answerLost: false });
    const families: Family[] = [];
    for (let i = 0; i < FAMILIES; i++) families.push(await signIn());

    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      // Every family refreshes in a loop until the server dies under it.
      const loops = families.map(async (f) => {
        f.answerLost = false;
        for (let n = 0; n < MAX_REFRESHES_PER_CYCLE; n++) {
          let r;
          try {
            r = await tokenRequest(server.url, client, { grant_type: "refresh_token", refresh_token: f.token });
          } catch {
            f.answerLost = true; // connection reset or refused: no answer, keep the token
            return;
          }
          if (r.status !== 200) throw new Error(`cycle ${cycle}: a refresh before the crash failed: ${r.status} ${JSON.stringify(r.body)}`);
          f.token = r.body.refresh_token;
          figures.refreshes++;
        }
      });
      await sleep(20 + Math.floor(Math.random() * 380));
      await stopServer(server.child, "SIGKILL");
      await Promise.all(loops);

      // The database as the crash left it.
      const rows = await db.rows();
      const byFamily = new Map<string, typeof rows>();
      for (const r of rows) byFamily.set(r.familyId, [...(byFamily.get(r.familyId) ?? []), r]);
      const halfWritten = [...byFamily.values()].filter((fam) => fam.every((r) => r.rotatedAt && !r.revoked)).length;
      const byHash = new Map(rows.map((r) => [r.tokenHash, r]));
      const lostAnswers = families.filter((f) => f.answerLost);
      /** The lost answers whose rotation had committed, with when. */
      const committed = new Map(lostAnswers.flatMap((f) => {
        const at = byHash.get(sha256(f.token))?.rotatedAt;
        return at ? [[f, at] as const] : [];
      }));
      const revokedBefore = new Set(rows.filter((r) => r.revoked).map((r) => r.familyId));

      const started = Date.now();
      server = await startServer(env);
      const restartMs = Date.now() - started;

      // Every client retries at once with the token it holds, then refreshes once more.
      let lost = 0;
      await Promise.all(
        families.map(async (f, i) => {
          const rotatedAt = committed.get(f);
          if (rotatedAt) figures.maxRetryDelayMs = Math.max(figures.maxRetryDelayMs, Date.now() - rotatedAt.getTime());
          const retry = await tokenRequest(server.url, client, { grant_type: "refresh_token", refresh_token: f.token });
          const next = retry.status === 200 ? await tokenRequest(server.url, client, { grant_type: "refresh_token", refresh_token: retry.body.refresh_token }) : retry;
          if (next.status === 200) {
            f.token = next.body.refresh_token;
            figures.refreshes += 2;
          } else {
            lost++;
            families[i] = await signIn(); // a new sign-in replaces the lost family
          }
        }),
      );
      const revoked = new Set((await db.rows()).filter((r) => r.revoked).map((r) => r.familyId)).size - revokedBefore.size;

      figures.answersLost += lostAnswers.length;
      figures.committedLost += committed.size;
      figures.halfWritten += halfWritten;
      figures.revoked += revoked;
      figures.lost += lost;
      figures.maxRestartMs = Math.max(figures.maxRestartMs, restartMs);
      console.log(
        `${kind} cycle ${cycle}: answers lost ${lostAnswers.length} (committed ${committed.size}), half-written ${halfWritten}, revoked ${revoked}, lost ${lost}, restart ${restartMs} ms`,
      );
    }
  } finally {
    await stopServer(server.child, "SIGTERM");
    await db.drop();
  }
  return figures;
}

const results: Figures[] = [];
for (const kind of KINDS) results.push(await campaign(kind));

const columns: Array<[string, keyof Figures]> = [
  ["database", "database"],
  ["cycles", "cycles"],
  ["refreshes", "refreshes"],
  ["answers lost", "answersLost"],
  ["committed, lost", "committedLost"],
  ["half-written", "halfWritten"],
  ["revoked", "revoked"],
  ["families lost", "lost"],
  ["max restart ms", "maxRestartMs"],
  ["max retry delay ms", "maxRetryDelayMs"],
];
console.log(`\n${FAMILIES} families, grace ${GRACE ?? "default"}`);
console.log(`| ${columns.map(([h]) => h).join(" | ")} |`);
console.log(`|${columns.map(() => "---").join("|")}|`);
for (const r of results) console.log(`| ${columns.map(([, k]) => String(r[k])).join(" | ")} |`);
process.exit(results.some((r) => r.lost > 0) ? 1 : 0);
