// The cockpit graph over HTTP: graphql-yoga with the Pothos schema, mounted by src/app.ts at
// GRAPHQL_PATH as Express middleware (Express has already parsed the JSON body, size-limited).
// GET from a browser serves GraphiQL; the admin JWT goes in its Headers tab.
import type { RequestHandler } from "express";
import { createYoga, type Plugin } from "graphql-yoga";
import type { Services } from "../app";
import { contextFactory, type GraphQLContext, type ServerContext } from "./context";
import { maskError, useDomainErrors } from "./errors";
import { useInputHygiene } from "./input-hygiene";
import { useQueryLimits } from "./limits";
import { schema } from "./schema";
import { renderGraphiQLPage, serveGraphiQLAsset } from "./graphiql";

export const GRAPHQL_PATH = "/graphql";


/**
 * Yoga's `cors` option. Off by default: no Access-Control-* header at all, so a page of another
 * origin cannot read an answer (and cannot send the JSON POST or the Authorization header, which
 * need a preflight). With an allow-list, an Origin equal to one of the listed origins (exact
 * string match, no wildcard) gets Access-Control-Allow-Origin with that origin; any other origin
 * gets no CORS headers. Never Access-Control-Allow-Credentials: the graph authenticates with the
 * bearer token in the Authorization header, never with cookies.
 */
export function graphqlCors(origins: readonly string[]) {
  if (origins.length === 0) return false as const;
  const allowed = new Set(origins);
  return (request: Request) => {
    const origin = request.headers.get("origin");
    if (origin === null || !allowed.has(origin)) return false as const;
    return {
      origin,
      credentials: false,
      methods: ["GET", "POST"],
      allowedHeaders: ["authorization", "content-type", "accept", "x-request-id"],
      exposedHeaders: ["x-request-id"],
      maxAge: 600,
    };
  };
}

/**
 * GraphiQL (GET /graphql from a browser) is the one HTML page of the graph. It must not be framed
 * (clickjacking: `frame-ancestors 'none'` and X-Frame-Options), and may run only what
 * src/graphql/graphiql.ts serves: its scripts, styles and Monaco's editor workers from this origin
 * ('self'; two small inline scripts start it: 'unsafe-inline', no eval), icons and fonts as data:
 * URLs, and it talks to this endpoint only (connect-src 'self'). Nothing is loaded from another origin.
 */
export const GRAPHIQL_CSP = [
  "default-src 'none'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

export function useGraphiQLHeaders(): Plugin {
  return {
    onResponse({ response }) {
      if (!response.headers.get("content-type")?.startsWith("text/html")) return;
      response.headers.set("Content-Security-Policy", GRAPHIQL_CSP);
      response.headers.set("X-Frame-Options", "DENY");
      response.headers.set("X-Content-Type-Options", "nosniff");
      response.headers.set("Referrer-Policy", "no-referrer");
    },
  };
}

const GRAPHIQL_HEADERS = JSON.stringify({ Authorization: "Bearer <access_token from POST /svc/uflow/auth/login>" }, null, 2);

const EXAMPLE_QUERY = `# Put your admin JWT in the Headers tab below, then run:
query Cockpit {
  workspace { id name viewerRole }
  resourceServers {
    id name state badges { discovered notLaunched }
    clientCounts { total approved pending revoked }
    clients { clientId clientName kind status }
  }
}
`;

/**
 * Every answer of the endpoint is per-user (admin JWT) and mutation payloads carry one-time secrets
 * (registerResourceServer, rotateIntrospectionSecret, preRegisterClient, rotateClientSecret): no browser or proxy
 * cache may keep any of them (RFC 9111 §5.2.2.5), errors and the GraphiQL page included.
 */
export function useNoStore(): Plugin {
  return {
    onResponse({ response }) {
      response.headers.set("Cache-Control", "no-store");
    },
  };
}

/** Yoga as an Express handler (Express 5's types do not accept the Yoga instance itself). */
export function createGraphQLServer(services: Services): RequestHandler {
  const yoga = createYogaServer(services);
  return async (req, res) => {
    // GraphiQL's scripts and styles (cacheable, compressed: src/graphql/graphiql.ts).
    if (await serveGraphiQLAsset(req, res)) return;
    await yoga(req, res);
  };
}

export function createYogaServer(services: Services) {
  const log = services.logger.child({ component: "graphql" });
  return createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    context: contextFactory(services),
    graphiql: { title: "Toolgate cockpit graph", defaultQuery: EXAMPLE_QUERY, headers: GRAPHIQL_HEADERS },
    // A small page whose scripts and styles come from this server (…/graphql/assets/<version>/),
    // from the installed package, not from a CDN: it works on machines without internet access.
    renderGraphiQL: renderGraphiQLPage,
    landingPage: false,
    // Yoga's own log lines (errors outside execution) go to our JSON logger.
    logging: {
      debug: (...args) => log.debug({ args }, "yoga"),
      info: (...args) => log.info({ args }, "yoga"),
      warn: (...args) => log.warn({ args }, "yoga"),
      error: (...args) => log.error({ err: args[0] }, "yoga"),
    },
    maskedErrors: { maskError },
    cors: graphqlCors(services.config.graphqlCorsOrigins),
    // Query limits refuse cyclic fan-out before anything runs (src/graphql/limits.ts); input
    // hygiene refuses unstorable arguments after variable coercion, before execution.
    plugins: [useQueryLimits(), useInputHygiene(), useNoStore(), useGraphiQLHeaders(), useDomainErrors(log)],
  });
}
