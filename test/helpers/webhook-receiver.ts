// A webhook endpoint for tests: a real HTTP server on loopback that verifies every request's
// Standard Webhooks signature with an independent implementation (the `standardwebhooks`
// package), records what it received, and answers as the test says: 204, a failure status
// (optionally with Retry-After), or nothing at all (it hangs until the sender gives up).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export type ReceiverMode = { kind: "ok" } | { kind: "fail"; status: number; retryAfter?: string } | { kind: "hang" };

export interface Received {
  id: string;
  timestamp: string;
  /** The verified payload ({type, timestamp, data}); undefined when the signature did not verify. */
  payload: { type: string; timestamp: string; data: any } | undefined;
  verified: boolean;
  body: string;
}

export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** How the next requests are answered (the default is 204). */
  mode: ReceiverMode;
  /** Requests that arrived (hung ones included). */
  requests: number;
  /** The webhook-id of each request left hanging. */
  hung: string[];
  /** The secret the signatures are checked with (set after the subscription is created). */
  secret: string | undefined;
  /** Called with each request's webhook-id as it arrives, before it is answered. */
  onRequest: ((id: string) => void) | undefined;
  ofType(type: string): Received[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(path = "/hooks"): Promise<WebhookReceiver> {
  const hung: ServerResponse[] = [];
  const receiver: WebhookReceiver = {
    url: "",
    received: [],
    mode: { kind: "ok" },
    requests: 0,
    hung: [],
    secret: undefined,
    onRequest: undefined,
    ofType: (type) => receiver.received.filter((r) => r.payload?.type === type),
    close: async () => {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    receiver.requests++;
    receiver.onRequest?.(String(req.headers["webhook-id"]));
    const mode = receiver.mode;
    if (mode.kind === "hang") {
      hung.push(res);
      receiver.hung.push(String(req.headers["webhook-id"]));
      return;
    }
    if (mode.kind === "fail") {
      res.writeHead(mode.status, mode.retryAfter ? { "retry-after": mode.retryAfter } : {}).end("receiver failure body that must never be stored");
      return;
    }
    const headers = { "webhook-id": String(req.headers["webhook-id"]), "webhook-timestamp": String(req.headers["webhook-timestamp"]), "webhook-signature": String(req.headers["webhook-signature"]) };
    let payload: Received["payload"];
    try {
      payload = new Webhook(receiver.secret ?? "").verify(body, headers) as Received["payload"];
    } catch {
      payload = undefined;
    }
    receiver.received.push({ id: headers["webhook-id"], timestamp: headers["webhook-timestamp"], payload, verified: payload !== undefined, body });
    res.writeHead(payload ? 204 : 401).end();
  };
  const server = createServer((req, res) => {
    if (req.url !== path) return void res.writeHead(404).end();
    handle(req, res).catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}
