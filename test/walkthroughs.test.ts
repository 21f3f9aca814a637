// Every walk-through marked in README.md and docs/*.md (the ```sh blocks between
// `<!-- walkthrough:start -->` and `<!-- walkthrough:end -->`) runs verbatim in bash, as a reader
// runs it: against `npm start` (a spawned server, default embedded database, in a fresh project
// folder whose data/ it creates), logged in from data/initial-admin.json. Then it is run a second
// time the way its doc says (stop, `rm -rf data`, start again), so "run it twice" works too.
// Only the base URL is changed (the server listens on an ephemeral port).
import { afterAll, describe, expect, it, vi } from "vitest";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, startServerProcess, type RunningServer } from "./helpers/process";

vi.setConfig({ testTimeout: 300_000 });

interface Walkthrough {
  doc: string;
  script: string;
}

function walkthroughs(): Walkthrough[] {
  const docs = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
  return docs.flatMap((doc) => {
    const text = readFileSync(join(ROOT, doc), "utf8");
    const found: Walkthrough[] = [];
    for (const [, section] of text.matchAll(/<!-- walkthrough:start -->\n([\s\S]*?)<!-- walkthrough:end -->/g)) {
      const blocks = [...section!.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
      found.push({ doc, script: blocks.join("\n") });
    }
    return found;
  });
}

/** What a reader would take for a broken walk-through (the confusions the docs used to cause). */
const CONFUSING = [/invalid email or password/, /must be a UUID/, /missing bearer token/, /invalid or expired token/, /already exists/, /^null$/m, /"error":"not found"/];

const servers: RunningServer[] = [];
const folders: string[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

function run(script: string, url: string, cwd: string) {
  const text = script.replace(/http:\/\/localhost:8080/g, url);
  // -e: a failing step (jq on a non-JSON answer, a missing file) stops the walk-through.
  return spawnSync("bash", ["-euo", "pipefail", "-c", text], { cwd, encoding: "utf8", timeout: 120_000, env: { PATH: process.env.PATH!, HOME: process.env.HOME! } });
}

const found = walkthroughs();

// The docs are written for the default embedded database (`npm start` on a fresh clone).
describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))("walk-throughs in the docs", () => {
  it("finds the marked walk-throughs (README, people and access, GraphQL)", () => {
    expect(found.map((w) => w.doc)).toEqual(expect.arrayContaining(["README.md", "docs/people-and-access.md", "docs/graphql.md"]));
  });

  it.each(found.map((w) => [w.doc, w] as const))("%s runs verbatim, and again after the reset its doc gives", async (_doc, w) => {
    const project = mkdtempSync(join(tmpdir(), "toolgate-walkthrough-"));
    folders.push(project);
    for (let round = 1; round <= 2; round++) {
      const server = await startServerProcess({}, project);
      servers.push(server);
      const r = run(w.script, server.url, project);
      const output = r.stdout + r.stderr;
      expect(r.status, `round ${round}:\n${output}`).toBe(0);
      for (const bad of CONFUSING) expect(output, `round ${round}: ${bad}`).not.toMatch(bad);
      // The reset step of the docs: stop the server, rm -rf data, start again.
      await server.stop();
      rmSync(join(project, "data"), { recursive: true, force: true });
    }
  });
});
