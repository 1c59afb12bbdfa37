/** Child processes for tests: the built `interlude` CLI, and throwaway PostgreSQL databases. */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { testPostgresUrl } from "../../../test/setup/urls.js";

const CLI = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));

export interface Child {
  process: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts `interlude <args>` and resolves once its output matches `ready`. */
export async function startCli(
  args: string[],
  ready: RegExp,
  env: Record<string, string> = {},
): Promise<Child & { match: RegExpMatchArray }> {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`interlude ${args.join(" ")} did not start:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = output.match(ready);
      if (m) clearTimeout(timer), resolve(m);
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => (clearTimeout(timer), reject(new Error(`interlude exited (${code}):\n${output}`))));
  });
  return {
    process: child,
    match,
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        // Exited already (a killed process has a signalCode and no exitCode).
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
      }),
  };
}

/** Starts `interlude serve <args>` on a free port; resolves once it listens, with its URL. */
export async function serve(args: string[], env: Record<string, string> = {}): Promise<Child & { url: string }> {
  const child = await startCli(["serve", "--port", "0", ...args], /listening on (http:\/\/\S+)/, env);
  return { ...child, url: child.match[1]! };
}

/** `interlude serve --config <config> --postgres <url>` run until it exits: a start that fails. */
export function serveUntilExit(config: string, postgresUrl: string) {
  return runCli(["serve", "--port", "0", "--config", config, "--postgres", postgresUrl]);
}

/** Runs `interlude <args>` to completion. */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.on("exit", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/**
 * A fresh database on the test PostgreSQL server, with `settings` as its sessions' defaults
 * (`ALTER DATABASE ... SET`: what a hardened or managed database sets); returns its URL.
 */
export async function freshDatabase(
  serverUrl: string,
  name: string,
  settings: Record<string, string> = {},
): Promise<string> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
    for (const [setting, value] of Object.entries(settings))
      await client.query(`ALTER DATABASE ${name} SET ${setting} = ${pg.escapeLiteral(value)}`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A fresh database on the suite's PostgreSQL server, named after `prefix` (and this worker and instant), with `settings` (freshDatabase). */
export function testDatabase(prefix: string, settings: Record<string, string> = {}): Promise<string> {
  return freshDatabase(testPostgresUrl(), `${prefix}_${process.pid}_${Date.now() % 1e6}`, settings);
}

/**
 * A fresh PostgreSQL database for a test file, and a client connected to it for the test's own
 * SQL: made before the file's tests (its `beforeAll` runs before the file's own), the client
 * closed after them.
 */
export function databaseForFile(prefix: string): { url: string; sql: pg.Client } {
  const database = { url: "", sql: undefined as unknown as pg.Client };
  beforeAll(async () => {
    database.url = await testDatabase(prefix);
    database.sql = new pg.Client({ connectionString: database.url });
    await database.sql.connect();
  }, 60_000);
  afterAll(async () => {
    await database.sql?.end();
  });
  return database;
}

/**
 * A deployment on a fresh PostgreSQL database for a test file: the database is made before the
 * file's tests (its `beforeAll` runs before the file's own) and every `interlude` process started
 * through it is stopped after them.
 */
export function deploymentOnPostgres(prefix: string) {
  const children: Child[] = [];
  const started = <T extends Child>(child: T) => (children.push(child), child);
  const deployment = {
    /** The database's URL (set once the file's tests begin). */
    database: "",
    /** `interlude serve --config <config> --postgres <database>`, with `env` added. */
    serve: async (config: string, env: Record<string, string> = {}) =>
      started(await serve(["--config", config, "--postgres", deployment.database], env)),
    /** `interlude worker --config <config> --postgres <database> <args>`, with `env` added. */
    worker: async (config: string, args: string[] = [], env: Record<string, string> = {}) =>
      started(
        await startCli(["worker", "--config", config, "--postgres", deployment.database, ...args], /worker ready/, env),
      ),
  };
  beforeAll(async () => void (deployment.database = await testDatabase(prefix)));
  afterAll(() => Promise.all(children.map((child) => child.stop())));
  return deployment;
}

/** A test server's storage, for `describe.each`: SQLite (its own file), or a fresh PostgreSQL database named after `prefix`. */
export function storages(prefix: string) {
  return [
    ["SQLite", async () => ({})],
    ["PostgreSQL", async () => ({ postgresUrl: await testDatabase(prefix) })],
  ] as const;
}
