// The cockpit graph over HTTP: graphql-yoga with the Pothos schema, mounted by src/app.ts at
// GRAPHQL_PATH as Express middleware (Express has already parsed the JSON body, size-limited).
// GET from a browser serves GraphiQL; the admin JWT goes in its Headers tab.
import { renderGraphiQL } from "@graphql-yoga/render-graphiql";
import type { RequestHandler } from "express";
import { createYoga, type Plugin } from "graphql-yoga";
import type { Services } from "../app";
import { contextFactory, type GraphQLContext, type ServerContext } from "./context";
import { maskError, useDomainErrors } from "./errors";
import { useQueryLimits } from "./limits";
import { schema } from "./schema";

export const GRAPHQL_PATH = "/graphql";

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
 * (registerResourceServer, rotateIntrospectionSecret, preRegisterClient): no browser or proxy
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
    // GraphiQL's scripts and styles are served inline from the installed package, not from a CDN,
    // so the page works on machines without internet access (air-gapped installs).
    renderGraphiQL,
    landingPage: false,
    // Yoga's own log lines (errors outside execution) go to our JSON logger.
    logging: {
      debug: (...args) => log.debug({ args }, "yoga"),
      info: (...args) => log.info({ args }, "yoga"),
      warn: (...args) => log.warn({ args }, "yoga"),
      error: (...args) => log.error({ err: args[0] }, "yoga"),
    },
    maskedErrors: { maskError },
    // Query limits refuse cyclic fan-out before anything runs (src/graphql/limits.ts).
    plugins: [useQueryLimits(), useNoStore(), useDomainErrors(log)],
  });
}
