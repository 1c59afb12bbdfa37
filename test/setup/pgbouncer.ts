/**
 * A throwaway PgBouncer on loopback in front of a test database, for the tests of what Interlude
 * does behind a pooler. One process serves the database under three names, one per pooling
 * mode (`transaction`, `statement`, `session`); stopped and its directory deleted with `stop()`.
 * Run as the `postgres` user when we are root, as PostgreSQL is (postgres.mjs).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, giveToPostgres } from "./postgres.mjs";

const BINARY = "/usr/sbin/pgbouncer";
const MODES: PoolMode[] = ["transaction", "statement", "session"];

/** Resolves once something accepts connections on `port`, or rejects after `ms`. */
async function untilListening(port: number, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => (socket.end(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`pgbouncer did not listen on port ${port} within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export type PoolMode = "transaction" | "statement" | "session";

/** A PgBouncer pooling `databaseUrl` (trust authentication, as the test server's): its URL in each mode. */
export async function startPgBouncer(databaseUrl: string): Promise<{ urls: Record<PoolMode, string>; stop(): void }> {
  if (!existsSync(BINARY)) throw new Error(`no ${BINARY}: apt-get install pgbouncer (npm test does)`);
  const upstream = new URL(databaseUrl);
  const database = upstream.pathname.slice(1);
  const user = decodeURIComponent(upstream.username);
  const dir = mkdtempSync(join(tmpdir(), "interlude-pgbouncer-"));
  const port = await freePort();
  const ini = join(dir, "pgbouncer.ini");
  const users = join(dir, "users.txt");
  const databases = MODES.map(
    (mode) => `${mode} = host=${upstream.hostname} port=${upstream.port} dbname=${database} pool_mode=${mode}`,
  );
  writeFileSync(users, `"${user}" ""\n`);
  writeFileSync(
    ini,
    [
      "[databases]",
      ...databases,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${users}`,
      "max_client_conn = 200",
      "default_pool_size = 20",
      `logfile = ${join(dir, "pgbouncer.log")}`,
      "",
    ].join("\n"),
  );
  const root = giveToPostgres(dir, users, ini);
  // As root it starts as such and then runs as `postgres` (-u), our own child all the same, so that stop() reaches it.
  const child = spawn(BINARY, root ? ["-u", "postgres", ini] : [ini], { stdio: "ignore" });
  const stop = () => {
    child.kill("SIGINT");
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await untilListening(port, 10_000);
  } catch (error) {
    stop();
    throw error;
  }
  const urls = Object.fromEntries(
    MODES.map((mode) => [mode, `postgres://${upstream.username}@127.0.0.1:${port}/${mode}`]),
  ) as Record<PoolMode, string>;
  return { urls, stop };
}
