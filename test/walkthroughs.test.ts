// Every walk-through marked in README.md and docs/*.md (the ```sh blocks between
// `<!-- walkthrough:start -->` and `<!-- walkthrough:end -->`) runs verbatim in bash, as a reader
// runs it: against `npm start` (a spawned server, default embedded database, in a fresh project
// folder whose data/ it creates), logged in from data/initial-admin.json. Then it is run a second
// time the way its doc says: stop, `rm -rf data`, start again; or, for a walk-through marked
// rerun="as-is", again on the same server and data.
//
// What the runner changes, and nothing else:
// - http://localhost:8080 becomes the server's ephemeral URL (also its TOOLGATE_PUBLIC_URL, so the
//   issuer is the URL the commands use, as it is for a reader);
// - port 3333 (the sample MCP server of docs/lifecycle.md, the upstream identity provider of
//   docs/federation.md) becomes a free port, so parallel test files cannot collide on it;
// - `CODE=<paste …>`, the code a reader copies from the browser after signing in, comes from a
//   scripted browser (test/helpers/walkthrough-browser.ts) that opens "$AUTHORIZE" and signs in as
//   the marker's browser="email password";
// - a ```sh block right after `<!-- walkthrough:skip -->` is not run (its doc says why).
// The start marker may also carry env="K=V …": the server's environment (e.g.
// TOOLGATE_SCAN_ALLOW_PRIVATE=1, as its doc starts Toolgate).
//
// It fails when a step fails (bash -e, pipefail), on outputs that confused readers (CONFUSING), when
// an answer its doc promises is missing (PROMISES), and when a process the walk-through started is
// still running after it ends (its doc must stop what it starts, also after a failed step).
import { afterAll, describe, expect, it, vi } from "vitest";
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, freePort, startServerProcess, type RunningServer } from "./helpers/process";

vi.setConfig({ testTimeout: 300_000 });

interface Walkthrough {
  /** "README.md", "docs/lifecycle.md" (#n when a doc has several). */
  name: string;
  doc: string;
  script: string;
  env: Record<string, string>;
  browser?: { email: string; password: string };
  rerun: "reset" | "as-is";
}

const ATTRIBUTES = new Set(["env", "browser", "rerun"]);

function parseMarker(doc: string, attrs: string): Omit<Walkthrough, "name" | "doc" | "script"> {
  const a: Record<string, string> = {};
  for (const [, key, value] of attrs.matchAll(/(\w+)="([^"]*)"/g)) {
    if (!ATTRIBUTES.has(key!)) throw new Error(`${doc}: unknown walkthrough attribute ${key}`);
    a[key!] = value!;
  }
  const env = Object.fromEntries((a.env ?? "").split(/\s+/).filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
  const [email, password] = (a.browser ?? "").split(/\s+/);
  if (a.rerun !== undefined && a.rerun !== "as-is") throw new Error(`${doc}: rerun="${a.rerun}" (only "as-is")`);
  return { env, browser: email && password ? { email, password } : undefined, rerun: a.rerun === "as-is" ? "as-is" : "reset" };
}

function walkthroughs(): Walkthrough[] {
  const docs = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
  return docs.flatMap((doc) => {
    const text = readFileSync(join(ROOT, doc), "utf8");
    const sections = [...text.matchAll(/<!-- walkthrough:start((?:\s+\w+="[^"]*")*)\s*-->\n([\s\S]*?)<!-- walkthrough:end -->/g)];
    return sections.map(([, attrs, section], i) => {
      const blocks = [...section!.matchAll(/(<!-- walkthrough:skip -->\n)?```sh\n([\s\S]*?)```/g)].filter((m) => !m[1]).map((m) => m[2]!);
      const marker = parseMarker(doc, attrs!);
      const script = blocks.join("\n");
      if (/^CODE=<paste/m.test(script) && !marker.browser) throw new Error(`${doc}: a browser step without browser="email password" on its marker`);
      return { name: sections.length > 1 ? `${doc}#${i + 1}` : doc, doc, script, ...marker };
    });
  });
}

/** What a reader would take for a broken walk-through (the confusions the docs used to cause). */
const CONFUSING = [/invalid email or password/, /must be a UUID/, /missing bearer token/, /invalid or expired token/, /already exists/, /^null$/m, /"error":"not found"/];

/** Answers a walk-through's doc promises (its `# comments`), checked in its output. */
const PROMISES: Record<string, RegExp[]> = {
  "docs/access-explained.md": [
    /\{"verdict":"denied","failed_condition":"missing_role_scope","required_scopes":\["notes:write"\],"effective_scopes":\["notes:read"\],"fix":"add_binding","role":"Editor"\}/,
    /\{"users_gaining":1,"tools_gained":\["create_note","delete_note"\]\}/, // the fix's impact, from the change preview
    /\["role_grants_scope","blocked"\]\n\["client_allowed_scope","not_evaluated"\]/,
    /\{"via":"group:Support","role_name":"Viewer","scopes":\[\{"scope":"notes:read","tools":\["list_notes","read_note","server_time"\]\}\]\}/,
    /"users_with_access":1\}/,
    /\{"users_count":1,"holders":\[\{"email":"dana@example.com","via":"group:Support"\}\]\}/,
    /\{"stage":"sign_in","check":"credentials_valid","reason":"wrong password"\}/,
    /^\{"users":\[\],"after":\["notes:read"\],"not_signed_in":2,"warnings":\["scope_reaches_everyone"\]\}$/m, // a default-role preview
  ],
  "README.md": [
    /"active": true,\n {2}"sub": "tgc_/, // step 5: the machine token
    /"scope": "files:read"\n}\n\{\n {2}"active": true,\n {2}"scope": ""\n}/, // the binding removed: no scope
    /\{"active":true,"client_id":"tgc_[^"]+","scope":"files:read"\}/, // the MCP client's token
    /"registration_mode":"dcr","status":"approved","last_connected_at":"20/, // its connection
    /\{"status":"revoked"\}\n\{"active":false\}/, // revoked: inactive at once
  ],
  "docs/lifecycle.md": [
    /"status": "pending_scan"/,
    /"state": "needs_setup"/,
    /"tool_name":"create_note"[\s\S]*"tool_name":"delete_note"[\s\S]*"tool_name":"list_notes"[\s\S]*"tool_name":"read_note"[\s\S]*"tool_name":"server_time"/,
    /"can_activate": true/,
    /"state": "ready"/,
    /"pushed": true,\n {2}"valid": true,\n {2}"tool_count": 5/,
    /"text":"welcome"\}\]\},"jsonrpc":"2.0","id":1\} -> 200/, // list_notes with notes:read
    /"error":"insufficient_scope"[^\n]* -> 403/, // create_note needs notes:write
    /^www-authenticate: Bearer resource_metadata=/m,
    /"error":"access_denied","error_description":"the tool read_note is not mapped to any scope[^\n]* -> 403/, // drift, after the refresh
    /^401\n"secret_rotated"$/m,
  ],
  "docs/migrations.md": [/^\{"provider":"sqlite","pending":0,"last":"applied"\}\n\{"applied":\[\],"pending":0\}$/m],
  "docs/openid-provider.md": [
    /"id_token_signing_alg_values_supported":\["RS256","ES256"\]/,
    /\{"sub":"[0-9a-f-]{36}","aud":"tgc_[^"]+","nonce":"n-42","amr":\["pwd"\],"acr":"urn:toolgate:acr:1fa"\}/,
    /\{"email":"erin@example.com","email_verified":false\}/,
    /^same auth_time$/m,
    /^302 http:\/\/127\.0\.0\.1\/signed-out\?state=bye$/m,
  ],
  "docs/operations.md": [/^otpauth:\/\/totp\/Toolgate/m, /^\s*10$/m, /^\{"error":"mfa_required","factors":\["otp"\],"expires_in":300\}$/m, /^\["mfa","otp","pwd"\]$/m, /^401$/m, /^\{"require_mfa_for_admins":true\}$/m],
  "docs/oauth.md": [/"previous_secret_expires_at": "20/, /^"Bearer"\n"Bearer"$/m, /\{"client_id":"tgc_[^"]+","client_name":"Visual Studio Code"\}/, /^204$/m],
  "docs/audit-and-integrations.md": [
    /^\{"action":"group\.created","actor":"user","address":"127\.0\.0\.1","target":"group","outcome":"success"\}$/m,
    /^\{"verified":true,"type":"webhook\.test"\}\n\{"verified":true,"type":"group\.created"\}$/m, // signatures verified by the receiver
    /^true$/m, // the chain
  ],
  "docs/agents.md": [/^\{"kind":"autonomous","status":"active","roles":\[true\]\}$/m, /^\{"active":true,"scope":"tickets:read"\}$/m, /^\{"active":false\}\ninvalid_client$/m],
  "docs/evidence-and-authzen.md": [
    /^\{"decision":true\}\n\{"decision":false,"context":\{"reason":"scope_not_granted"\}\}$/m, // AuthZEN, single
    /^\[true,false,true\]$/m, // AuthZEN, batch
    /^\{"written":false,"summary":\{"users_gaining":1,"tools_gained":\["create_note","delete_note"\]\}\}\nfalse$/m, // preview wrote nothing
    /^\["tool_becomes_public"\]$/m,
    /^\{"seq":2,"previous":1,"rows":2\}\nsame files$/m, // chained, byte-identical
  ],
  "docs/federation.md": [
    /^\{"name":"Acme SSO","client_secret_set":true,"jit_provisioning":true,"authorization_endpoint":"http:\/\/127\.0\.0\.1:\d+\/auth","redirect_uri":"http:\/\/127\.0\.0\.1:\d+\/svc\/hmgr\/callback"\}$/m, // discovery checked
    /^\/svc\/hmgr\/login$/m, // "Continue with Acme SSO"
    /^http:\/\/127\.0\.0\.1:\d+\/interaction\/…$/m, // at the upstream provider's form
    /^Signed in as <strong>ann@acme\.test<\/strong>$/m, // back at Toolgate's consent page
    /^\{"active":true,"scope":"notes:read"\}$/m, // the synced group's scope
    /^\{"email":"ann@acme\.test","identityProvider":"Acme SSO"\}$/m,
  ],
  "docs/enterprise-agents.md": [
    /pending administrator approval \(request …\)/, // the first connection waits
    /^\{"active":true,"scope":"docs:read"\}$/m, // approved with the reader role
    /^revoked\n\{"active":false\}$/m, // revoked: inactive at once
    /^\{"token_type":"Bearer","scope":"docs:read"\}$/m, // the workload's token
  ],
};

const servers: RunningServer[] = [];
const folders: string[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

/** Processes of process group `pgid` that are alive (zombies excluded; Linux /proc). */
function livingInGroup(pgid: number): number[] {
  const found: number[] = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) === pgid && state !== "Z") found.push(Number(pid));
    } catch {
      /* gone meanwhile */
    }
  }
  return found;
}

/** Runs the script in bash, in its own process group; resolves when bash has exited and its group is empty (or was killed). */
async function run(w: Walkthrough, url: string, cwd: string): Promise<{ status: number | null; output: string; leftovers: string[] }> {
  const samplePort = await freePort();
  const text = w.script
    .replace(/http:\/\/localhost:8080/g, url)
    .replace(/\b3333\b/g, String(samplePort))
    .replace(/^CODE=<paste[^>]*>.*$/gm, () => `CODE=$(node --import tsx '${join(ROOT, "test/helpers/walkthrough-browser.ts")}' "$AUTHORIZE" '${w.browser!.email}' '${w.browser!.password}')`);
  // -e: a failing step (jq on a non-JSON answer, a missing file) stops the walk-through. stdin is
  // not a socket (Node's pipes are), or bash would take itself for an ssh session and read bashrc.
  const child = spawn("bash", ["-euo", "pipefail", "-c", text], { cwd, detached: true, stdio: ["ignore", "pipe", "pipe"], env: { PATH: process.env.PATH!, HOME: process.env.HOME! } });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const closed = new Promise<void>((resolve) => child.on("close", () => resolve()));
  const timer = setTimeout(() => process.kill(-child.pid!, "SIGKILL"), 120_000);
  // "exit", not "close": a process left running keeps the output pipes open.
  const status = await new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  clearTimeout(timer);
  // What the walk-through started must end with it (its trap); give SIGTERM handlers a moment.
  const deadline = Date.now() + 5_000;
  let left = livingInGroup(child.pid!);
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    left = livingInGroup(child.pid!);
  }
  const leftovers = left.map((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0/g, " ").trim());
  if (left.length) process.kill(-child.pid!, "SIGKILL");
  await closed;
  return { status, output, leftovers };
}

/** At most two walk-throughs at once: each runs a server (and maybe an MCP server) on a 2-core machine. */
let running = 0;
const waiting: (() => void)[] = [];
async function slot<T>(f: () => Promise<T>): Promise<T> {
  if (running >= 2) await new Promise<void>((r) => waiting.push(r));
  running++;
  try {
    return await f();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

const found = walkthroughs();

// The docs are written for the default embedded database (`npm start` on a fresh clone).
describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))("walk-throughs in the docs", () => {
  it("finds the marked walk-throughs, and every doc promise names one", () => {
    expect(found.map((w) => w.name)).toEqual(expect.arrayContaining(["README.md", "docs/people-and-access.md", "docs/graphql.md", "docs/lifecycle.md", "docs/oauth.md", "docs/openid-provider.md", "docs/operations.md", "docs/audit-and-integrations.md", "docs/agents.md", "docs/evidence-and-authzen.md", "docs/enterprise-agents.md", "docs/federation.md"]));
    for (const name of Object.keys(PROMISES)) expect(found.map((w) => w.name)).toContain(name);
  });

  it.concurrent.each(found.map((w) => [w.name, w] as const))("%s runs verbatim, and again after the reset its doc gives", (_name, w) =>
    slot(async () => {
      const project = mkdtempSync(join(tmpdir(), "toolgate-walkthrough-"));
      folders.push(project);
      // A project folder as after `npm install`: the walk-throughs run the sample MCP server.
      symlinkSync(join(ROOT, "node_modules"), join(project, "node_modules"));
      symlinkSync(join(ROOT, "examples"), join(project, "examples"));
      let server: RunningServer | undefined;
      for (let round = 1; round <= 2; round++) {
        if (!server) {
          server = await startServerProcess((url) => ({ TOOLGATE_PUBLIC_URL: url, ...w.env }), project);
          servers.push(server);
        }
        const r = await run(w, server.url, project);
        expect(r.status, `round ${round}:\n${r.output}`).toBe(0);
        for (const bad of CONFUSING) expect(r.output, `round ${round}: ${bad}`).not.toMatch(bad);
        for (const promise of PROMISES[w.name] ?? []) expect(r.output, `round ${round}: ${promise}`).toMatch(promise);
        expect(r.leftovers, `round ${round}: processes left running`).toEqual([]);
        if (w.rerun === "as-is") continue;
        // The reset step of the docs: stop the server, rm -rf data, start again.
        await server.stop();
        server = undefined;
        rmSync(join(project, "data"), { recursive: true, force: true });
      }
      await server?.stop();
    }),
  );
});
