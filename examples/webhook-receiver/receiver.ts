// A webhook endpoint for Toolgate's /svc/exsvc webhooks (docs/audit-and-integrations.md): it
// verifies each delivery's Standard Webhooks signature with the reference implementation (the
// `standardwebhooks` package) and prints one JSON line per message. The secret is read from
// WEBHOOK_SECRET_FILE at each request, so the receiver can start before the webhook exists.
//
//   PORT=3333 WEBHOOK_SECRET_FILE=./webhook.secret node --import tsx examples/webhook-receiver/receiver.ts
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { Webhook } from "standardwebhooks";

const port = Number(process.env.PORT ?? 3333);
const secretFile = process.env.WEBHOOK_SECRET_FILE ?? "webhook.secret";

const server = createServer(async (req, res) => {
  if (req.method === "GET" && req.url === "/readyz") return void res.writeHead(200).end("ok");
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = Buffer.concat(chunks).toString("utf8");
  const headers = { "webhook-id": String(req.headers["webhook-id"]), "webhook-timestamp": String(req.headers["webhook-timestamp"]), "webhook-signature": String(req.headers["webhook-signature"]) };
  try {
    const message = new Webhook(readFileSync(secretFile, "utf8").trim()).verify(body, headers) as { type: string; data: { action?: string; target?: unknown } };
    console.log(JSON.stringify({ verified: true, id: headers["webhook-id"], type: message.type, target: message.data.target ?? null }));
    res.writeHead(204).end();
  } catch (e) {
    console.log(JSON.stringify({ verified: false, id: headers["webhook-id"], reason: (e as Error).message }));
    res.writeHead(401).end();
  }
});
server.listen(port, "127.0.0.1", () => console.error(`webhook receiver on http://127.0.0.1:${port}/`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
