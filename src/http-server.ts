// The HTTP server that serves the Express app, with requests and responses born with Express's
// prototypes.
//
// Why (docs/benchmarks.md "Round 3", docs/decisions/0021-oauth-hot-path-http.md): Express's
// app.handle() gives every request and response its own prototypes with Object.setPrototypeOf
// (app.request, app.response). Changing the prototype of a live object costs V8 a map transition
// on every request and leaves the property accesses of node:http, Express and everything else that
// touches req/res polymorphic. On this machine a bare Express 5 route answered ~13,000 req/s at
// ~80 µs of CPU each; the same app with objects created with those prototypes already in place
// answered ~44,000 req/s at ~23 µs. node:http lets a server choose the constructors of its request
// and response objects (http.createServer's IncomingMessage and ServerResponse options): these
// construct node's own objects (node's constructors run unchanged) with app.request and
// app.response as their prototypes, so Express's setPrototypeOf finds the prototype already set
// and changes nothing. Express still routes and handles everything; only the objects' birth differs.
//
// Only where the switch costs (docs/benchmarks.md, Round 4): a bare Express 5 route answered
// 10,600-15,200 req/s with node's default server and 36,000-37,900 with born objects on Node 20
// (V8 11.3) and Node 22 (V8 12.4); on Node 24 (V8 13.6) the switch no longer costs and born objects
// are the slower ones (39,500-40,900 against 34,600-35,700 req/s), so there node's default server
// serves.
import { createServer, IncomingMessage, ServerResponse, type Server } from "node:http";
import type { Socket } from "node:net";
import type { Express } from "express";

export interface ExpressHttpServer {
  server: Server;
  /** Serves `app` (call once, before the first request: the objects' prototypes come from it). */
  serve(app: Express): void;
}

type Construct<A extends unknown[]> = (this: object, ...args: A) => void;

/** Node's constructors are plain functions (not classes): they can run on an object we allocate. */
const callable = (f: unknown): boolean => typeof f === "function" && !/^class\b/.test(Function.prototype.toString.call(f));

/** Whether Express's per-request Object.setPrototypeOf is costly on this V8 (measured: 11 and 12 yes, 13 no). */
export const bornWithAppPrototypes = Number(process.versions.v8.split(".")[0]) < 13;

/** A node:http server whose request and response objects are born with `app`'s prototypes (where that pays). */
export function createExpressServer(): ExpressHttpServer {
  // `new Request(socket)` allocates an object whose prototype is Request.prototype and runs node's
  // own constructor on it. (Reflect.construct with a newTarget measured ~5x slower per request.)
  const incoming = IncomingMessage as unknown as Construct<[Socket]>;
  const outgoing = ServerResponse as unknown as Construct<[IncomingMessage, unknown]>;
  function Request(this: object, socket: Socket): void {
    incoming.call(this, socket);
  }
  function Response(this: object, req: IncomingMessage, options: unknown): void {
    outgoing.call(this, req, options);
  }
  Request.prototype = IncomingMessage.prototype;
  Response.prototype = ServerResponse.prototype;
  const bornAsExpress = bornWithAppPrototypes && callable(IncomingMessage) && callable(ServerResponse);
  const server = bornAsExpress ? createServer({ IncomingMessage: Request as unknown as typeof IncomingMessage, ServerResponse: Response as unknown as typeof ServerResponse }) : createServer();
  return {
    server,
    serve(app) {
      if (bornAsExpress) {
        Request.prototype = app.request;
        Response.prototype = app.response;
      }
      server.on("request", app);
    },
  };
}
