// The MCP conformance suite (@modelcontextprotocol/conformance, authorization-server mode: the
// metadata and authorization-code scenarios) against a running Toolgate, with a public client
// registered through DCR and with a CIMD client (its metadata document on loopback https). The
// suite runs as its own process (Node 20 needs the fs.globSync shim in helpers/conformance); when
// it prints the authorization URL, the test signs the user in over HTTP and follows the redirect to
// the suite's callback server, as a person with a browser would. Passing means: exit code 0, every
// check SUCCESS, and no WARNING (the CIMD check is a warning unless CIMD is advertised).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startToolgate, type Harness } from "./helpers/harness";
import { browser, setUpSignIn } from "./helpers/signin-flow";
import { loopbackCertificate, type TestCertificate } from "./helpers/tls";
import { CimdHost } from "./helpers/cimd-host";

const USER = { email: "conf@example.test", password: "conf-password-123" };
const SHIM = fileURLToPath(new URL("./helpers/conformance/fs-glob-shim.mjs", import.meta.url));
const SUITE = fileURLToPath(new URL("../node_modules/@modelcontextprotocol/conformance/dist/index.js", import.meta.url));

let h: Harness;
let cert: TestCertificate;
let host: CimdHost;
let setup: Awaited<ReturnType<typeof setUpSignIn>>;

beforeAll(async () => {
  cert = loopbackCertificate();
  host = await CimdHost.start(cert);
  h = await startToolgate({ env: { TOOLGATE_SCAN_ALLOW_PRIVATE: "1", TOOLGATE_OUTBOUND_CA_FILE: cert.certFile } });
  setup = await setUpSignIn(h.url, h.adminToken, { name: "Conformance", scopes: ["mcp:read"], users: [USER], redirectUri: "http://127.0.0.1/callback" });
});
afterAll(async () => {
  await h?.close();
  await host?.close();
});

/** A port nobody listens on right now (the suite's callback server takes it). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** Runs the suite; signs in when it asks; resolves to its exit code and output. */
async function runSuite(clientId: string): Promise<{ code: number | null; output: string; checks: Array<{ id: string; status: string }> }> {
  const port = await freePort();
  const outDir = mkdtempSync(join(tmpdir(), "toolgate-conformance-"));
  const child = spawn(process.execPath, ["--import", SHIM, SUITE, "authorization", "--url", h.config.publicUrl, "--client-id", clientId, "--resource", setup.resource, "--port", String(port), "--output-dir", outDir], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
  });
  let output = "";
  let signIn: Promise<void> | undefined;
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    const url = /(https?:\/\/\S+\/oauth\/authorize\?\S+)/.exec(output)?.[1];
    if (url && !signIn) {
      signIn = (async () => {
        const b = browser(h.config.publicUrl, h.url);
        const login = await b.open(new URL(url));
        const consent = await b.submit(login, USER);
        const done = await b.submit(consent, { decision: "allow" });
        if (!done.location) throw new Error(`no redirect: ${done.status} ${done.html}`);
        await fetch(done.location); // the suite's callback server
      })().catch((e) => {
        output += `\n[test] sign-in failed: ${(e as Error).message}\n`;
        child.kill();
      });
    }
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  await signIn;
  // Every check the suite recorded (one checks.json per scenario).
  const files = readdirSync(outDir, { recursive: true }).map(String).filter((f) => f.endsWith("checks.json"));
  const checks = files.flatMap((f) => JSON.parse(readFileSync(join(outDir, f), "utf8")) as Array<{ id: string; status: string }>);
  return { code, output, checks };
}

function expectClean(run: Awaited<ReturnType<typeof runSuite>>) {
  const notSuccess = run.checks.filter((c) => c.status !== "SUCCESS");
  if (process.env.SHOW_CONFORMANCE || run.code !== 0 || notSuccess.length > 0) console.log(run.output, JSON.stringify(run.checks, null, 2));
  expect(run.code).toBe(0);
  expect(run.output).toMatch(/Total: \d+ passed, 0 failed/);
  // Both scenarios ran, and every check of both (the CIMD support check included) is SUCCESS, not WARNING.
  expect(run.checks.map((c) => c.id).sort()).toEqual(["authorization-code-grant", "authorization-server-metadata", "authorization-server-metadata-cimd"]);
  expect(notSuccess).toEqual([]);
}

describe("MCP conformance suite, authorization-server scenarios", () => {
  it("passes with a public client registered through DCR", async () => {
    const reg = await h.request("POST", "/oauth/register", {
      json: { redirect_uris: ["http://127.0.0.1/callback"], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"], client_name: "conformance", application_type: "native" },
    });
    expect(reg.status).toBe(201);
    expectClean(await runSuite(reg.body.client_id));
  }, 60_000);

  it("passes with a CIMD client", async () => {
    const path = "/conformance/client.json";
    const url = `${host.origin}${path}`;
    host.serve(path, { body: { client_id: url, client_name: "conformance (CIMD)", redirect_uris: ["http://127.0.0.1/callback"], token_endpoint_auth_method: "none", grant_types: ["authorization_code"], response_types: ["code"] } });
    expectClean(await runSuite(url));
    expect(host.hitsOf(path)).toBeGreaterThan(0);
  }, 60_000);
});
