import { defineConfig } from "vitest/config";

// One config for the whole workspace: every package's tests run against the built packages
// (imports resolve through the workspace links to dist/, so build first: `npm test` does).
// The global setup starts the test servers once, for every project.
const timeouts = { testTimeout: 30_000, hookTimeout: 60_000 };

export default defineConfig({
  test: {
    globalSetup: ["test/setup/servers.ts"],
    projects: [
      {
        test: {
          name: "interlude",
          include: [
            "packages/*/test/**/*.test.ts",
            "examples/**/*.test.ts",
            "compat/test/**/*.test.ts",
            "test/**/*.test.ts",
          ],
          ...timeouts,
        },
      },
      // The compat scenarios again with Interlude on each durable saver (compat/test/durable-savers.ts).
      ...["sqlite", "postgres", "redis"].map((kind) => ({
        test: {
          name: `compat on ${kind}`,
          include: ["compat/test/**/*.test.ts"],
          env: { COMPAT_SAVER: kind },
          ...timeouts,
        },
      })),
    ],
  },
});
