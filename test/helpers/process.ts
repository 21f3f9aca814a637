// Runs the real entry points (src/main.ts, src/cli.ts) as child processes, as a user would.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "../..");
const TSX = join(ROOT, "node_modules/tsx/dist/cli.mjs");

/**
 * A port that was free a moment ago. Another process (a parallel test file) can take it before
 * the caller binds it: startServerProcess() notices the child's EADDRINUSE and tries another.
 * (src/main.ts prints the configured public URL, not the bound port, so the child cannot simply
 * listen on port 0 and tell us.)
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

/** Environment for a child: ours minus anything Toolgate reads, plus `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("TOOLGATE_") && k !== "DATABASE_URL" && k !== "PORT"));
  return { ...base, ...env };
}

export function runCli(args: string[], env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [TSX, join(ROOT, "src/cli.ts"), ...args], { cwd: ROOT, env: childEnv(env), encoding: "utf8", timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface RunningServer {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Thrown when the child could not bind its port because another process took it first. */
class PortTakenError extends Error {}

/** How to run the server: through tsx (npm start) or the compiled build (node dist/main.js, after npm run build). */
export type ServerEntry = "tsx" | "compiled";

/**
 * `env` may depend on the URL the child will listen on (e.g. TOOLGATE_PUBLIC_URL set to it, so the
 * issuer is the address the caller uses).
 */
export async function startServerProcess(env: Record<string, string> | ((url: string) => Record<string, string>), cwd = ROOT, entry: ServerEntry = "tsx"): Promise<RunningServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(await freePort(), env, cwd, entry);
    } catch (e) {
      if (!(e instanceof PortTakenError) || attempt === 5) throw e;
    }
  }
}

async function startOnce(port: number, env: Record<string, string> | ((url: string) => Record<string, string>), cwd: string, entry: ServerEntry): Promise<RunningServer> {
  const args = entry === "tsx" ? [TSX, join(ROOT, "src/main.ts")] : [join(ROOT, "dist/main.js")];
  const url = `http://127.0.0.1:${port}`;
  // Its own process group: tsx runs the server in a child process, which a SIGKILL of tsx alone
  // would leave running (an orphan holding the database and a core).
  const child = spawn(process.execPath, args, { cwd, detached: true, env: childEnv({ PORT: String(port), HOST: "127.0.0.1", ...(typeof env === "function" ? env(url) : env) }) });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  // tsx compiles the whole app at start: on a loaded 2-core machine that alone can take half a minute.
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) {
      if (/EADDRINUSE/.test(out)) throw new PortTakenError(`port ${port} was taken:\n${out}`);
      throw new Error(`server exited with ${child.exitCode}:\n${out}`);
    }
    try {
      // "listening" is printed by our child only once it holds the port, so the health check
      // cannot be answered by another process that took the port.
      if (out.includes("listening") && (await fetch(`${url}/healthz`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) {
      process.kill(-child.pid!, "SIGKILL");
      throw new Error(`server did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    output: () => out,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** A second Toolgate process on the harness's database, master key and issuer (instances behind one URL), with `env` besides. */
export function startSecondInstance(h: { config: { database: { url: string }; masterKey: Buffer | undefined; publicUrl: string; dataDir: string } }, env: Record<string, string> = {}): Promise<RunningServer> {
  return startServerProcess({
    DATABASE_URL: h.config.database.url,
    TOOLGATE_MASTER_KEY: h.config.masterKey!.toString("hex"),
    TOOLGATE_PUBLIC_URL: h.config.publicUrl,
    TOOLGATE_DATA_DIR: h.config.dataDir,
    TOOLGATE_LOG_LEVEL: "warn",
    ...env,
  });
}
