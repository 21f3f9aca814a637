// The contract between bench/run.ts and each scenario in bench/scenarios/*.ts. The runner starts one
// Toolgate server on the embedded database (its own process, so load and server do not share an
// event loop), seeds it, then runs every scenario with autocannon (50 connections, 10 s each) in
// the same run and prints req/s, p50, p99 and the ratio to the baseline route.

import type { PeerContext } from "./peer";

export interface BenchContext {
  /** e.g. http://127.0.0.1:PORT */
  url: string;
  /** Admin JWT of the seeded workspace's owner. */
  adminToken: string;
  /** Admin JSON call helper (throws on a non-2xx answer). */
  admin<T = any>(method: string, path: string, body?: unknown): Promise<T>;
}

export interface AutocannonRequest {
  /** Another server to load (e.g. an MCP server a scenario started); default: Toolgate. */
  origin?: string;
  /** With `origin`: the pid of the process serving it (CPU per request is sampled from it). */
  originPid?: number;
  method: "GET" | "POST" | "PUT";
  /** Concurrent connections for this scenario (default BENCH_CONNECTIONS): few, to measure per-call latency rather than queueing. */
  connections?: number;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /**
   * autocannon's request sequence, for a request that changes every time (each built by its
   * `setupRequest`, each answer seen by `onResponse`); `body` then serves the runner's probe only.
   */
  requests?: unknown[];
}

export interface Scenario {
  name: string;
  /** Creates what the scenario needs through the public API and returns the request to repeat. */
  setup(ctx: BenchContext): Promise<AutocannonRequest>;
  /** Target as a fraction of the baseline's req/s, printed next to the measured ratio. */
  target?: number;
  /** Latency overhead against another scenario of the same run: median per-round p50 ratio, at most `maxP50Ratio`. */
  overheadOf?: { scenario: string; maxP50Ratio: number };
  /** Stops what setup started (called once per scenario after the run, also on failure). */
  teardown?(): Promise<void>;
  /**
   * The same operation on node-oidc-provider (bench/peer.ts), measured in the same rounds; the
   * runner prints both and the ratio (this scenario's req/s / the peer's), with `target`.
   */
  peer?: { name: string; target: number; setup(peer: PeerContext): Promise<AutocannonRequest> };
}

/** Logs the bench's owner in and wraps the admin API for a scenario's set-up. */
export async function adminContext(owner: { email: string; password: string }, url: string): Promise<BenchContext> {
  const login = await fetch(`${url}/svc/uflow/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(owner) });
  if (!login.ok) throw new Error(`admin login failed: ${login.status} ${await login.text()}`);
  const adminToken = ((await login.json()) as { access_token: string }).access_token;
  return {
    url,
    adminToken,
    async admin(method, path, body) {
      const res = await fetch(url + path, {
        method,
        headers: { authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return text ? JSON.parse(text) : undefined;
    },
  };
}
