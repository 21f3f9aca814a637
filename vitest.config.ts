import { defineConfig } from "vitest/config";

// One suite for both databases: TEST_DATABASE_URL=postgresql://... runs it against PostgreSQL.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: process.env.CI ? ["default"] : ["default"],
  },
});
