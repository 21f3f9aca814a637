// Runs the real entry points (src/main.ts, src/cli.ts) as child processes, as a user would.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "../..");
const TSX = join(ROOT, "node_modules/tsx/dist/cli.mjs");

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

export async function startServerProcess(env: Record<string, string>, cwd = ROOT): Promise<RunningServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [TSX, join(ROOT, "src/main.ts")], { cwd, env: childEnv({ PORT: String(port), HOST: "127.0.0.1", ...env }) });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${out}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok && out.includes("listening")) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > deadline) throw new Error(`server did not start:\n${out}`);
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
