import { defineConfig } from "vitest/config";

// One config for the whole workspace: every package's tests run against the built packages
// (imports resolve through the workspace links to dist/, so build first: `npm test` does).
export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/**/*.test.ts", "compat/test/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/setup/servers.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
