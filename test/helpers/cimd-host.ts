// An https server on loopback that serves Client ID Metadata Documents for the tests: each path
// answers what the test set for it (status, headers, body), and every request is counted, so a
// test can tell whether Toolgate fetched (or refetched) a document.
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { TestCertificate } from "./tls";

export interface HostedAnswer {
  status?: number;
  headers?: Record<string, string>;
  body: string | object;
}

export class CimdHost {
  readonly answers = new Map<string, HostedAnswer>();
  readonly hits = new Map<string, number>();

  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  static async start(cert: TestCertificate, host: "127.0.0.1" | "localhost" = "127.0.0.1"): Promise<CimdHost> {
    let self: CimdHost | undefined;
    const server = createServer({ key: cert.key, cert: cert.cert }, (req, res) => {
      const path = new URL(req.url ?? "/", "https://x").pathname;
      self!.hits.set(path, (self!.hits.get(path) ?? 0) + 1);
      const a = self!.answers.get(path);
      if (!a) return res.writeHead(404).end();
      const body = typeof a.body === "string" ? a.body : JSON.stringify(a.body);
      res.writeHead(a.status ?? 200, { "content-type": "application/json", ...(a.headers ?? {}) }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    self = new CimdHost(server, `https://${host}:${(server.address() as AddressInfo).port}`);
    return self;
  }

  /** Serves `doc` at `path`; answers the URL (the client_id). */
  serve(path: string, answer: HostedAnswer): string {
    this.answers.set(path, answer);
    return this.origin + path;
  }

  hitsOf(path: string): number {
    return this.hits.get(path) ?? 0;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
