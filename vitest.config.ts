import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

// One suite for both databases: TEST_DATABASE_URL=postgresql://... runs it against PostgreSQL.
export default defineConfig({
  // One graphql-js: Vite would resolve `graphql` for our sources to its ES module build while the
  // externalised dependencies (graphql-yoga, Pothos) load the CommonJS one through Node, and
  // `instanceof GraphQLError` fails across two copies. Node (and so production) uses `main`.
  resolve: { alias: [{ find: /^graphql$/, replacement: "graphql/index.js" }] },
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    // One file per core at a time. Vitest's default leaves a core of a 2-core machine (CI's) to the
    // servers and browsers the tests start, and they do not fill it: the suite then used about one
    // core of two. No file shares anything writable with another (own database, ephemeral ports,
    // own temporary folders; dist/ is built once, by `npm test`'s pretest).
    maxWorkers: Math.max(2, availableParallelism()),
    // Files share their worker's module registry instead of re-importing the app (and Prisma) for
    // each file: the suite takes half the time. Safe because every file starts its own app on its
    // own fresh database (test/helpers/harness.ts) and no module keeps per-test state.
    isolate: false,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: process.env.CI ? ["default"] : ["default"],
  },
});
