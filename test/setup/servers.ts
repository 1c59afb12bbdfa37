import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { freePort, startPostgres } from "./postgres.mjs";

/**
 * Throwaway database servers for the whole test run: a PostgreSQL cluster and a redis-server,
 * each on a random port on 127.0.0.1 with its data in a temp dir that is deleted afterwards.
 * Tests get their URLs with `testPostgresUrl()` / `testRedisUrl()` (urls.ts; also in
 * INTERLUDE_TEST_POSTGRES_URL / INTERLUDE_TEST_REDIS_URL for child processes). A server whose
 * binaries are missing is skipped with a warning; `npm test` installs them first. What it
 * provides is declared in urls.ts, which reads it.
 */
interface Server {
  url: string;
  stop(): void;
}

export default async function setup(project: TestProject): Promise<() => void> {
  const postgres = await startPostgres().catch(warn("PostgreSQL"));
  const redis = await startRedis().catch(warn("redis-server"));
  project.provide("postgresUrl", postgres?.url);
  project.provide("redisUrl", redis?.url);
  if (postgres) process.env.INTERLUDE_TEST_POSTGRES_URL = postgres.url;
  if (redis) process.env.INTERLUDE_TEST_REDIS_URL = redis.url;
  return () => {
    redis?.stop();
    postgres?.stop();
  };
}

function warn(what: string) {
  return (error: unknown): undefined => {
    console.warn(
      `[test servers] ${what} not started, its tests will fail: ${error instanceof Error ? error.message : String(error)}`,
    );
    return undefined;
  };
}

async function startRedis(): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), "interlude-redis-"));
  const port = await freePort();
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir];
  const child: ChildProcess = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("redis-server did not start within 20 s")), 20_000);
      child.once("error", (error) => (clearTimeout(timer), reject(error)));
      child.once("exit", (code) => (clearTimeout(timer), reject(new Error(`redis-server exited with code ${code}`))));
      child.stdout!.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("Ready to accept connections")) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  } catch (error) {
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  child.stdout!.resume();
  child.stderr!.resume();
  return {
    url: `redis://127.0.0.1:${port}`,
    stop() {
      child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
