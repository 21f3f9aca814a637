// The scanner's HTTP client: a fetch (the shape the MCP SDK transport takes) built on node:http
// and node:https whose connections all go to the addresses the scanner resolved and checked
// before the scan (several for a dual-stack host: Node's happy eyeballs picks among them, never
// outside them). The URL's host name is kept for the Host header and for TLS (SNI and
// certificate check), but it is never resolved again, so a DNS answer that changes between the
// check and the connection (DNS rebinding) cannot move the scan to another address.
//
// It never follows a redirect: a 3xx answer fails the request (RedirectNotFollowedError), since a
// redirect could lead to an address that was never checked. It only requests the origin it was
// made for. Network errors are thrown as `TypeError("fetch failed", {cause})`, as global fetch does.
import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { rootCertificates } from "node:tls";
import { Readable } from "node:stream";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

export interface PinnedAddress {
  address: string;
  family: 4 | 6;
}

export class RedirectNotFollowedError extends Error {
  constructor(readonly status: number) {
    super(`the upstream answered HTTP ${status}; redirects are not followed`);
    this.name = "RedirectNotFollowedError";
  }
}

/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY = new Set([204, 205, 304]);

export class PinnedConnection {
  private readonly agent: http.Agent;

  constructor(
    private readonly origin: URL,
    pinned: readonly PinnedAddress[],
    /** https only: extra trusted CA certificates (PEM), added to the system's roots. */
    tls: { ca?: string } = {},
  ) {
    const [first] = pinned;
    if (!first) throw new Error("no address to connect to");
    // Every connection of this agent "resolves" to the checked addresses, whatever the host name.
    const lookup = ((_hostname, options, callback) => {
      if (options.all) callback(null, pinned.map((p) => ({ address: p.address, family: p.family })));
      else callback(null, first.address, first.family);
    }) as LookupFunction;
    const opts = { keepAlive: true, maxSockets: 4, lookup };
    this.agent = origin.protocol === "https:" ? new https.Agent({ ...opts, ...(tls.ca === undefined ? {} : { ca: [...rootCertificates, tls.ca] }) }) : new http.Agent(opts);
  }

  readonly fetch: FetchLike = async (input, init) => {
    const url = new URL(input instanceof URL ? input.href : String(input));
    if (url.origin !== this.origin.origin) throw new Error(`the scan only connects to ${this.origin.origin} (a request for ${url.origin} was refused)`);
    const body = init?.body ?? undefined;
    if (body !== undefined && typeof body !== "string" && !(body instanceof Uint8Array)) throw new Error("unsupported request body");
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
    if (body !== undefined) headers["content-length"] = String(Buffer.byteLength(body));
    const method = init?.method ?? "GET";
    const request = url.protocol === "https:" ? https.request : http.request;

    return new Promise<Response>((resolve, reject) => {
      const req = request(url, { method, headers, agent: this.agent, signal: init?.signal ?? undefined }, (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400) {
          res.destroy();
          return reject(new RedirectNotFollowedError(status));
        }
        try {
          const responseHeaders = new Headers();
          for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) responseHeaders.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
          const noBody = NULL_BODY.has(status) || method === "HEAD";
          if (noBody) res.resume();
          const stream = noBody ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
          resolve(new Response(stream, { status, statusText: res.statusMessage, headers: responseHeaders }));
        } catch (e) {
          // A status outside 200-599 or a header value that Headers refuses.
          res.destroy();
          reject(new TypeError("fetch failed", { cause: e }));
        }
      });
      req.on("error", (err) => reject(err.name === "AbortError" ? err : new TypeError("fetch failed", { cause: err })));
      req.end(body);
    });
  };

  /** Closes every connection of this scan. */
  close(): void {
    this.agent.destroy();
  }
}
