/**
 * The URLs of the test run's servers (servers.ts starts them), for test files and their helpers:
 * a clear error where there is none, instead of a driver's about an undefined URL.
 */
import { inject } from "vitest";

/** What the run's global setup (servers.ts) provides to every test file. */
declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string | undefined;
    redisUrl: string | undefined;
  }
}

const HOW = "run `npm test` (scripts/test.sh), which installs and starts one";

/** The run's PostgreSQL server (child processes find it in INTERLUDE_TEST_POSTGRES_URL). */
export function testPostgresUrl(): string {
  const url = inject("postgresUrl") ?? process.env.INTERLUDE_TEST_POSTGRES_URL;
  if (!url) throw new Error(`No test PostgreSQL: ${HOW}.`);
  return url;
}

/** The run's redis-server (child processes find it in INTERLUDE_TEST_REDIS_URL). */
export function testRedisUrl(): string {
  const url = inject("redisUrl") ?? process.env.INTERLUDE_TEST_REDIS_URL;
  if (!url) throw new Error(`No test redis-server: ${HOW}.`);
  return url;
}
