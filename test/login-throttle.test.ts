// Password guessing backs off per account AND client address, in the database: a guesser slows
// themselves down, never the owner at a clean address; every attempt is counted before it is
// checked, so guesses sent at once (to one instance or to two on PostgreSQL) get no more checks
// than guesses sent one by one (the checks counted through GET /metrics); one account has one
// allowance per address whatever the door; the counts survive a restart, expire and are pruned;
// operators unlock and reset from the CLI.
// Source addresses are real: the test binds its client sockets to 127.0.0.x (all loopback on Linux).
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { request as httpRequest } from "node:http";
import { createHash, randomBytes } from "node:crypto";
import { ManualClock } from "../src/shared/clock";
import { runCli } from "../src/cli/run";
import { normaliseAddress } from "../src/shared/client-address";
import { ADMIN_EMAIL, ADMIN_PASSWORD, startToolgate, type Harness } from "./helpers/harness";
import { startSecondInstance, type RunningServer } from "./helpers/process";
import { startSecondApp } from "./helpers/second-app";

vi.setConfig({ testTimeout: 120_000 });
const onPostgres = !!process.env.TEST_DATABASE_URL;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One HTTP request whose socket is bound to `from` (the address the server sees). */
function send(base: string, from: string, method: string, path: string, body?: { json?: unknown; form?: Record<string, string> }, headers: Record<string, string> = {}): Promise<Answer> {
  const payload = body?.json !== undefined ? JSON.stringify(body.json) : body?.form ? new URLSearchParams(body.form).toString() : undefined;
  const type = body?.json !== undefined ? "application/json" : "application/x-www-form-urlencoded";
  return new Promise((resolve, reject) => {
    const req = httpRequest(base + path, { method, localAddress: from, headers: { ...headers, ...(payload !== undefined ? { "content-type": type } : {}) } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on("error", reject);
    req.end(payload);
  });
}

const loginAt = (base: string) => async (from: string, email: string, password: string) => {
  const r = await send(base, from, "POST", "/svc/uflow/auth/login", { json: { email, password } });
  return { ...r, body: JSON.parse(r.text) };
};

const THROTTLED = (seconds: number) => ({ error: "too many failed sign-in attempts; try again later", retry_after: seconds });
const WRONG = { error: "invalid email or password" };

async function cli(args: string[], env: Record<string, string>, stdin?: string) {
  let stdout = "";
  let stderr = "";
  const status = await runCli(args, env, { out: (t) => (stdout += `${t}\n`), err: (t) => (stderr += `${t}\n`), readStdin: stdin === undefined ? undefined : async () => stdin });
  return { status, stdout, stderr };
}

const cliEnv = (h: Harness) => ({ DATABASE_URL: h.config.database.url, TOOLGATE_DATA_DIR: h.config.dataDir, TOOLGATE_MASTER_KEY: h.config.masterKey!.toString("hex") });

describe("login throttle (one instance, exact clock)", () => {
  const clock = new ManualClock(new Date("2026-03-01T10:00:00Z"));
  let h: Harness;
  let login: ReturnType<typeof loginAt>;
  beforeAll(async () => {
    h = await startToolgate({ clock, env: { TOOLGATE_MASTER_KEY: randomBytes(32).toString("hex") } });
    login = loginAt(h.url);
  });
  afterAll(async () => h?.close());

  it("slows down the guessing address; the owner signs in from a clean address meanwhile", async () => {
    for (let i = 0; i < 5; i++) {
      const r = await login("127.0.0.2", ADMIN_EMAIL, `wrong-${i}`);
      expect([r.status, r.body]).toEqual([401, WRONG]);
    }
    // Even the right password is refused from the guessing address, before it is checked. The
    // refused attempt counts too (the 6th): the wait it announces is the one after it.
    const refused = await login("127.0.0.2", ADMIN_EMAIL, ADMIN_PASSWORD);
    expect([refused.status, refused.body]).toEqual([429, THROTTLED(60)]);
    expect(refused.headers["retry-after"]).toBe("60");
    const owner = await login("127.0.0.3", ADMIN_EMAIL, ADMIN_PASSWORD);
    expect(owner.status).toBe(200);
    expect(owner.body.token_type).toBe("Bearer");

    // Coming back before the announced wait is one more attempt: refused, and the wait doubles from now.
    clock.advance(20_000);
    expect((await login("127.0.0.2", ADMIN_EMAIL, ADMIN_PASSWORD)).body).toEqual(THROTTLED(120));
    clock.advance(120_000);
    // The wait is over: a right password works and clears this address's count for the account.
    expect((await login("127.0.0.2", ADMIN_EMAIL, ADMIN_PASSWORD)).status).toBe(200);
    expect((await login("127.0.0.2", ADMIN_EMAIL, "wrong-again")).status).toBe(401);
  });

  it("doubles the wait with every further attempt, checked or refused, up to 15 minutes", async () => {
    const [from, email] = ["127.0.0.4", "someone@example.test"];
    for (let i = 0; i < 5; i++) await login(from, email, "wrong");
    for (const wait of [30, 60, 120]) {
      clock.advance(wait * 1000);
      expect((await login(from, email, "wrong")).status).toBe(401); // the 6th, 7th and 8th attempts are checked
    }
    clock.advance(239_000);
    expect((await login(from, email, "wrong")).body).toEqual(THROTTLED(480)); // 1 s early: the 9th, refused
    for (const wait of [480, 900]) {
      clock.advance(wait * 1000);
      expect((await login(from, email, "wrong")).status).toBe(401);
    }
    expect((await login(from, email, "wrong")).body).toEqual(THROTTLED(900));
  });

  it("slows down an address that sprays many accounts, for every account", async () => {
    const from = "127.0.0.5";
    for (let i = 0; i < 30; i++) expect((await login(from, `nobody-${i}@example.test`, "wrong")).status).toBe(401);
    expect((await login(from, ADMIN_EMAIL, ADMIN_PASSWORD)).body).toEqual(THROTTLED(60));
    expect((await login("127.0.0.3", ADMIN_EMAIL, ADMIN_PASSWORD)).status).toBe(200);
  });

  it("a guess spread over many addresses gets one try per address; an address that never failed still signs in", async () => {
    await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email: "target@example.test", username: "target", password: "target-password-1" });
    for (let i = 1; i <= 20; i++) expect((await login(`127.0.1.${i}`, "target@example.test", "wrong")).status).toBe(401);
    // The account is under a distributed guess: addresses that failed on it wait (this is the 21st attempt)...
    expect((await login("127.0.1.1", "target@example.test", "target-password-1")).body).toEqual(THROTTLED(60));
    // ...a new guessing address gets its one try (the 22nd), then waits too (the 23rd, refused)...
    expect((await login("127.0.1.21", "target@example.test", "wrong")).status).toBe(401);
    expect((await login("127.0.1.21", "target@example.test", "wrong")).body).toEqual(THROTTLED(240));
    // ...and the user at an address that never failed is let in.
    expect((await login("127.0.0.6", "target@example.test", "target-password-1")).status).toBe(200);
  });

  it("keeps the counts in the database: a restarted instance still refuses", async () => {
    for (let i = 0; i < 5; i++) await login("127.0.0.7", ADMIN_EMAIL, "wrong");
    // A new instance (fresh memory, as after a restart) on the same database.
    const restarted = await startSecondApp(h, clock);
    try {
      const again = loginAt(restarted.url);
      expect((await again("127.0.0.7", ADMIN_EMAIL, ADMIN_PASSWORD)).body).toEqual(THROTTLED(60));
      expect((await again("127.0.0.8", ADMIN_EMAIL, ADMIN_PASSWORD)).status).toBe(200);
    } finally {
      await restarted.close();
    }
  });

  it("stores no email or address in clear for accounts, and prunes counts once they expire", async () => {
    const rows = await h.db.loginFailure.findMany();
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain("example.test");
    clock.advance(60 * 60 * 1000 + 1000);
    // Expired counts no longer count, even before they are pruned. The success restarts its three
    // counts: the pair is deleted, the address's and the account's are given back (live, at 0).
    expect((await login("127.0.0.7", ADMIN_EMAIL, ADMIN_PASSWORD)).status).toBe(200);
    expect(await h.services.loginThrottle.prune()).toBe(rows.length - 3);
    expect((await h.db.loginFailure.findMany()).map((r) => r.failures)).toEqual([0, 0]);
    clock.advance(60 * 60 * 1000 + 1000);
    expect(await h.services.loginThrottle.prune()).toBe(2);
  });

  it("toolgate users unlock clears an account's counts (every address) or an address's", async () => {
    for (let i = 0; i < 5; i++) await login("127.0.0.9", ADMIN_EMAIL, "wrong");
    for (let i = 0; i < 30; i++) await login("127.0.0.10", `spray-${i}@example.test`, "wrong");
    expect((await login("127.0.0.9", ADMIN_EMAIL, ADMIN_PASSWORD)).status).toBe(429);
    expect((await login("127.0.0.10", ADMIN_EMAIL, ADMIN_PASSWORD)).status).toBe(429);

    const none = await cli(["users", "unlock"], cliEnv(h));
    expect([none.status, none.stderr]).toEqual([2, "users unlock needs --email or --address\n"]);
    const byEmail = await cli(["users", "unlock", "--email", ADMIN_EMAIL.toUpperCase()], cliEnv(h));
    // The account's count and its pairs: .9's, and .10's (its refused attempt above counted too).
    expect([byEmail.status, byEmail.stdout]).toEqual([0, `${JSON.stringify({ cleared: 3 })}\n`]);
    expect((await login("127.0.0.9", ADMIN_EMAIL, ADMIN_PASSWORD)).status).toBe(200);
    expect((await login("127.0.0.10", ADMIN_EMAIL, ADMIN_PASSWORD)).status).toBe(429); // the address itself is still throttled
    const byAddress = await cli(["users", "unlock", "--address", "127.0.0.10"], cliEnv(h));
    expect([byAddress.status, byAddress.stdout]).toEqual([0, `${JSON.stringify({ cleared: 32 })}\n`]); // 31 pairs and the address count
    expect((await login("127.0.0.10", ADMIN_EMAIL, ADMIN_PASSWORD)).status).toBe(200);
  });

  it("toolgate users reset-password takes the password from stdin or the environment, never argv, unlocks, and ends the sessions issued before", async () => {
    const env = cliEnv(h);
    const argv = await cli(["users", "reset-password", "--email", ADMIN_EMAIL, "--password", "new-password-1"], env);
    expect([argv.status, argv.stderr]).toEqual([
      2,
      "users reset-password: --password is refused (argv is visible to other users and kept in shell history); use --password-stdin or TOOLGATE_NEW_PASSWORD\n",
    ]);
    const missing = await cli(["users", "reset-password", "--email", ADMIN_EMAIL], env);
    expect([missing.status, missing.stderr]).toEqual([2, "users reset-password needs the new password on stdin (--password-stdin) or in TOOLGATE_NEW_PASSWORD\n"]);
    const unknown = await cli(["users", "reset-password", "--email", "ghost@example.test"], { ...env, TOOLGATE_NEW_PASSWORD: "new-password-1" });
    expect([unknown.status, unknown.stderr]).toEqual([1, "user not found\n"]);

    for (let i = 0; i < 5; i++) await login("127.0.0.11", ADMIN_EMAIL, "wrong");
    const beforeReset = await h.login(ADMIN_EMAIL, ADMIN_PASSWORD); // an intruder's session, say
    expect((await h.request("GET", "/svc/resource-servers", { token: beforeReset })).status).toBe(200);
    const viaStdin = await cli(["users", "reset-password", "--email", ADMIN_EMAIL, "--password-stdin"], env, "stdin-password-1\n");
    expect([viaStdin.status, viaStdin.stdout]).toEqual([0, `${JSON.stringify({ user_id: h.ownerId, workspace_id: h.workspaceId })}\n`]);
    expect((await login("127.0.0.11", ADMIN_EMAIL, ADMIN_PASSWORD)).body).toEqual(WRONG); // unlocked; the old password is gone
    expect((await login("127.0.0.11", ADMIN_EMAIL, "stdin-password-1")).status).toBe(200);
    // Admin tokens issued before the reset are refused from the next request on, REST and GraphQL
    // alike, exactly like an expired token; one issued after it works.
    const dead = await h.request("GET", "/svc/resource-servers", { token: beforeReset });
    expect([dead.status, dead.body, dead.headers.get("www-authenticate")]).toEqual([401, { error: "invalid or expired token" }, 'Bearer realm="toolgate-admin", error="invalid_token"']);
    const deadGraph = await h.request("POST", "/graphql", { token: beforeReset, json: { query: "{ workspace { id } }" } });
    expect([deadGraph.status, deadGraph.body.errors?.[0]?.message]).toEqual([401, "invalid or expired token"]);
    const afterReset = await h.login(ADMIN_EMAIL, "stdin-password-1");
    expect((await h.request("GET", "/svc/resource-servers", { token: afterReset })).status).toBe(200);

    const viaEnv = await cli(["users", "reset-password", "--email", ADMIN_EMAIL], { ...env, TOOLGATE_NEW_PASSWORD: ADMIN_PASSWORD });
    expect(viaEnv.status).toBe(0);
    expect((await login("127.0.0.11", ADMIN_EMAIL, ADMIN_PASSWORD)).status).toBe(200);
  });

  it("counts per workspace account when the login names a workspace; reset and unlock cover every account of the email", async () => {
    await h.services.tenancy.bootstrap({ email: "twice@example.test", password: "twice-password-1", workspaceName: "One" });
    const two = await h.services.tenancy.bootstrap({ email: "twice@example.test", password: "twice-password-2", workspaceName: "Two" });
    const env = { ...cliEnv(h), TOOLGATE_NEW_PASSWORD: "twice-password-3" };
    const ambiguous = await cli(["users", "reset-password", "--email", "twice@example.test"], env);
    expect([ambiguous.status, ambiguous.stderr]).toEqual([1, "this email has accounts in several workspaces; name one with --workspace\n"]);
    const named = await cli(["users", "reset-password", "--email", "twice@example.test", "--workspace", two.workspace_id], env);
    expect([named.status, named.stdout]).toEqual([0, `${JSON.stringify({ user_id: two.user_id, workspace_id: two.workspace_id })}\n`]);

    const loginTo = async (password: string) => {
      const r = await send(h.url, "127.0.0.14", "POST", "/svc/uflow/auth/login", { json: { email: "twice@example.test", password, workspace_id: two.workspace_id } });
      return { status: r.status, body: JSON.parse(r.text) };
    };
    for (let i = 0; i < 5; i++) expect(await loginTo("wrong")).toEqual({ status: 401, body: WRONG });
    expect(await loginTo("twice-password-3")).toEqual({ status: 429, body: THROTTLED(60) });
    const unlocked = await cli(["users", "unlock", "--email", "twice@example.test"], cliEnv(h));
    expect([unlocked.status, unlocked.stdout]).toEqual([0, `${JSON.stringify({ cleared: 2 })}\n`]);
    expect((await loginTo("twice-password-3")).status).toBe(200);
  });

  it("answers a throttled end-user sign-in with the same page as a wrong password", async () => {
    const token = await h.login(ADMIN_EMAIL, ADMIN_PASSWORD); // the clock moved past the harness's token
    await h.request("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { token, json: { email: "enduser@example.test", username: "enduser", password: "enduser-password-1" } });
    const page = await signInPages(h, token, "enduser@example.test");
    const blank = (html: string) => html.replace(/name="ticket" value="[^"]+"/, "").replace(/data-ticket="[^"]+"/, "");
    let ticket = await page.open("127.0.0.12");
    const wrong = await page.signIn("127.0.0.12", ticket, "wrong");
    ticket = ticketOf(wrong.text);
    for (let i = 0; i < 4; i++) ticket = ticketOf((await page.signIn("127.0.0.12", ticket, "wrong")).text);
    const throttled = await page.signIn("127.0.0.12", ticket, "enduser-password-1");
    expect(throttled.status).toBe(401);
    expect(wrong.status).toBe(401);
    expect(blank(throttled.text)).toBe(blank(wrong.text));
    expect(throttled.text).toContain("Invalid email or password.");
    // From a clean address the same user reaches the consent page.
    const clean = await page.signIn("127.0.0.13", await page.open("127.0.0.13"), "enduser-password-1");
    expect(clean.status).toBe(200);
    expect(clean.text).toContain('action="/oauth/authorize/consent"');
  });

  it("gives an address one allowance per account, whatever the door: admin login with or without the workspace, and the sign-in page", async () => {
    const token = await h.login(ADMIN_EMAIL, ADMIN_PASSWORD);
    const [email, password, from] = ["doors@example.test", "doors-password-1", "127.0.0.15"];
    await h.request("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { token, json: { email, username: "doors", password } });
    const page = await signInPages(h, token, email);
    const adminLogin = async (secret: string, workspace?: string) => {
      const r = await send(h.url, from, "POST", "/svc/uflow/auth/login", { json: { email, password: secret, ...(workspace ? { workspace_id: workspace } : {}) } });
      return { status: r.status, body: JSON.parse(r.text) };
    };
    // Five wrong guesses spread over the three doors...
    expect(await adminLogin("wrong-1")).toEqual({ status: 401, body: WRONG });
    expect(await adminLogin("wrong-2")).toEqual({ status: 401, body: WRONG });
    expect(await adminLogin("wrong-3", h.workspaceId)).toEqual({ status: 401, body: WRONG });
    expect(await adminLogin("wrong-4", h.workspaceId)).toEqual({ status: 401, body: WRONG });
    const fifth = await page.signIn(from, await page.open(from), "wrong-5");
    expect([fifth.status, fifth.text]).toEqual([401, expect.stringContaining("Invalid email or password.")]);
    // ...use up the allowance at every door: the right password is refused unchecked at each.
    expect(await adminLogin(password)).toEqual({ status: 429, body: THROTTLED(60) });
    expect(await adminLogin(password, h.workspaceId)).toEqual({ status: 429, body: THROTTLED(120) });
    const refused = await page.signIn(from, ticketOf(fifth.text), password);
    expect([refused.status, refused.text]).toEqual([401, expect.stringContaining("Invalid email or password.")]);
    expect((await adminLogin(password)).body).toEqual(THROTTLED(480)); // the page's refusal was the 8th attempt
  });
});

/** The hidden ticket of a sign-in page: one password attempt per page, every answer carries the next. */
const ticketOf = (html: string) => /name="ticket" value="([^"]+)"/.exec(html)![1]!;

/** The end-user sign-in page of a new server's client, for `email`: open() a page, signIn() on it. */
async function signInPages(h: Harness, token: string, email: string) {
  const admin = async (path: string, json: unknown) => (await h.request("POST", path, { token, json })).body;
  const rs = await admin("/svc/resource-servers", { name: "Notes", public_base_url: `https://notes-${randomBytes(4).toString("hex")}.example.test`, protected_base_path: "/mcp" });
  const client = await admin(`/svc/resource-servers/${rs.id}/clients`, { client_name: "Notes app", kind: "human_app", redirect_uris: ["http://127.0.0.1/cb"] });
  const query = new URLSearchParams({
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: "http://127.0.0.1/cb",
    code_challenge: createHash("sha256").update(randomBytes(32).toString("base64url")).digest("base64url"),
    code_challenge_method: "S256",
    state: "s1",
  });
  return {
    async open(from: string): Promise<string> {
      const page = await send(h.url, from, "GET", `/oauth/authorize?${query}`);
      expect([page.status, page.text]).toEqual([200, expect.stringContaining("ticket")]);
      return ticketOf(page.text);
    },
    signIn: (from: string, ticket: string, password: string) => send(h.url, from, "POST", "/oauth/authorize/login", { form: { ticket, email, password } }),
  };
}

const METRICS_TOKEN = "metrics-token-of-the-login-throttle-test";

/** How many passwords an instance has checked so far (its toolgate_password_checks_total). */
async function passwordChecks(base: string): Promise<number> {
  const r = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  return Number(/^toolgate_password_checks_total (\d+)$/m.exec(await r.text())![1]);
}

const BURST = 60;

/** BURST admin logins at once from one address, every password wrong but the last (sent last); request i goes to base(i). */
function burst(base: (i: number) => string, from: string, email: string, password: string): Promise<Answer[]> {
  return Promise.all(Array.from({ length: BURST }, (_, i) => send(base(i), from, "POST", "/svc/uflow/auth/login", { json: { email, password: i === BURST - 1 ? password : `wrong-${i}` } })));
}

/** What a burst must leave: at most 5 passwords checked (each a 401), the rest and the right one refused, every attempt counted. */
async function expectCountedBeforeChecked(h: Harness, answers: Answer[], checked: number, from: string, email: string): Promise<void> {
  expect(checked).toBeLessThanOrEqual(5);
  expect(answers.filter((a) => a.status === 401)).toHaveLength(checked);
  expect(answers.filter((a) => a.status === 429)).toHaveLength(BURST - checked);
  expect(answers.at(-1)!.status).toBe(429); // the right password, refused unchecked
  const account = h.services.loginThrottle.accountKey(email, h.workspaceId);
  const counts = await h.db.loginFailure.findMany({ where: { OR: [{ accountKey: account }, { scope: "address", address: from }] }, orderBy: { scope: "asc" } });
  expect(counts.map((r) => [r.scope, r.failures])).toEqual([
    ["account", BURST],
    ["address", BURST],
    ["pair", BURST],
  ]);
}

describe("concurrent guesses are counted before they are checked", () => {
  let h: Harness;
  const [email, password] = ["burst@example.test", "burst-password-1"];
  beforeAll(async () => {
    h = await startToolgate({ clock: new ManualClock(new Date("2026-03-01T10:00:00Z")), env: { TOOLGATE_METRICS_TOKEN: METRICS_TOKEN } });
    await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email, username: "burst", password });
  });
  afterAll(async () => h?.close());

  it(`${BURST} logins at once for one account from one address, the right one last: at most 5 checked, the right one refused, ${BURST} counted`, async () => {
    const before = await passwordChecks(h.url);
    const answers = await burst(() => h.url, "127.0.0.20", email, password);
    await expectCountedBeforeChecked(h, answers, (await passwordChecks(h.url)) - before, "127.0.0.20", email);
    // The user still signs in from an address that never guessed.
    expect((await loginAt(h.url)("127.0.0.21", email, password)).status).toBe(200);
  });
});

describe("client address behind a proxy", () => {
  it("ignores X-Forwarded-For unless TOOLGATE_TRUST_PROXY names the proxy", async () => {
    const plain = await startToolgate();
    const proxied = await startToolgate({ env: { TOOLGATE_TRUST_PROXY: "loopback" } });
    try {
      for (const [h, trusted] of [
        [plain, false],
        [proxied, true],
      ] as const) {
        const login = (xff: string, password: string) => send(h.url, "127.0.0.1", "POST", "/svc/uflow/auth/login", { json: { email: ADMIN_EMAIL, password } }, { "x-forwarded-for": xff });
        for (let i = 0; i < 5; i++) await login("203.0.113.7", "wrong");
        // Another client behind the same proxy: distinct only when the proxy is trusted.
        expect((await login("203.0.113.8", ADMIN_PASSWORD)).status).toBe(trusted ? 200 : 429);
        expect((await login("203.0.113.7", ADMIN_PASSWORD)).status).toBe(429);
      }
    } finally {
      await plain.close();
      await proxied.close();
    }
  });
});

describe.runIf(onPostgres)("login throttle shared by two instances on PostgreSQL", () => {
  let h: Harness;
  let b: RunningServer;
  beforeAll(async () => {
    h = await startToolgate({ env: { TOOLGATE_METRICS_TOKEN: METRICS_TOKEN } });
    b = await startSecondInstance(h, { TOOLGATE_METRICS_TOKEN: METRICS_TOKEN });
  });
  afterAll(async () => {
    await b?.stop();
    await h?.close();
  });

  it("failures counted by one instance throttle the address on the other; the owner's clean address works on both", async () => {
    const onA = loginAt(h.url);
    const onB = loginAt(b.url);
    for (let i = 0; i < 3; i++) expect((await onA("127.0.0.2", ADMIN_EMAIL, "wrong")).status).toBe(401);
    for (let i = 0; i < 2; i++) expect((await onB("127.0.0.2", ADMIN_EMAIL, "wrong")).status).toBe(401);
    for (const [on, wait] of [
      [onA, 60],
      [onB, 120],
    ] as const) {
      expect((await on("127.0.0.2", ADMIN_EMAIL, ADMIN_PASSWORD)).body).toEqual(THROTTLED(wait));
      expect((await on("127.0.0.3", ADMIN_EMAIL, ADMIN_PASSWORD)).status).toBe(200);
    }
    // An operator unlock through the CLI reaches both at once (no cache: the rows are the truth).
    expect((await cli(["users", "unlock", "--email", ADMIN_EMAIL], cliEnv(h))).status).toBe(0);
    expect((await onB("127.0.0.2", ADMIN_EMAIL, ADMIN_PASSWORD)).status).toBe(200);
  });

  it(`${BURST} logins at once for one account from one address, spread over both instances: at most 5 checked in all, ${BURST} counted`, async () => {
    const [email, password] = ["burst@example.test", "burst-password-1"];
    await h.admin("POST", `/uflow/v2/tenants/${h.workspaceId}/users`, { email, username: "burst", password });
    const checks = async () => (await passwordChecks(h.url)) + (await passwordChecks(b.url));
    const before = await checks();
    const answers = await burst((i) => (i % 2 === 0 ? h.url : b.url), "127.0.0.20", email, password);
    await expectCountedBeforeChecked(h, answers, (await checks()) - before, "127.0.0.20", email);
    expect((await loginAt(b.url)("127.0.0.21", email, password)).status).toBe(200);
  });
});

describe("client address normalisation", () => {
  it("unwraps IPv4-mapped IPv6 and counts IPv6 per /64", () => {
    expect(normaliseAddress("::ffff:203.0.113.9")).toBe("203.0.113.9");
    expect(normaliseAddress("203.0.113.9")).toBe("203.0.113.9");
    expect(normaliseAddress("2001:db8:0:12::1")).toBe("2001:db8:0:12::/64");
    expect(normaliseAddress("2001:0db8:0000:0012:abcd:1:2:3")).toBe("2001:db8:0:12::/64");
    expect(normaliseAddress("::1")).toBe("0:0:0:0::/64");
    expect(normaliseAddress(undefined)).toBe("unknown");
  });
});
