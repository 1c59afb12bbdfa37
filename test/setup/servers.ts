import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

/**
 * Throwaway database servers for the whole test run: a PostgreSQL cluster and a redis-server,
 * each on a random port on 127.0.0.1 with its data in a temp dir that is deleted afterwards.
 * Tests get their URLs with `inject("postgresUrl")` / `inject("redisUrl")` (also in
 * INTERLUDE_TEST_POSTGRES_URL / INTERLUDE_TEST_REDIS_URL for child processes). A server whose
 * binaries are missing is skipped with a warning; `npm test` installs them first.
 */
declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string | undefined;
    redisUrl: string | undefined;
  }
}

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
    console.warn(`[test servers] ${what} not started, its tests will fail: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

function postgresBin(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "pg_ctl"))) : [];
  if (versions.length === 0) throw new Error(`no ${root}/<version>/bin/pg_ctl (apt-get install postgresql)`);
  return join(root, versions.sort((a, b) => Number(b) - Number(a))[0]!, "bin");
}

/** PostgreSQL refuses to run as root: as root, the cluster belongs to (and runs as) `postgres`. */
function asPostgresUser(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
}

async function startPostgres(): Promise<Server> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), "interlude-pg-"));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, "data");
  const port = await freePort();
  const run = (command: string, args: string[]) => {
    const [file, argv] = asPostgresUser(join(bin, command), args);
    execFileSync(file, argv, { stdio: "pipe", cwd: dir });
  };
  try {
    run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200`;
    run("pg_ctl", ["-D", data, "-l", join(dir, "postgres.log"), "-o", options, "-w", "-t", "60", "start"]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
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
