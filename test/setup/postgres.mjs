/**
 * A throwaway PostgreSQL cluster on loopback, shared by the test run (servers.ts) and the
 * benchmarks: initdb into a temp dir, a random free port on 127.0.0.1, run as the `postgres`
 * user when we are root (PostgreSQL refuses to run as root); stopped and deleted with `stop()`.
 * The tests run it with fsync off (they check behaviour, and a crash of the throwaway cluster
 * loses nothing anyone keeps); the benchmarks with PostgreSQL's own durability settings, as a
 * deployment runs it.
 */
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** @returns {Promise<number>} a port nobody listens on right now */
export function freePort() {
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

function postgresBin() {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "pg_ctl"))) : [];
  if (versions.length === 0) throw new Error(`no ${root}/<version>/bin/pg_ctl (apt-get install postgresql)`);
  return join(root, versions.sort((a, b) => Number(b) - Number(a))[0], "bin");
}

const asRoot = () => process.getuid?.() === 0;

/**
 * When we are root, gives `paths` to the `postgres` user, as which PostgreSQL's tools (and
 * PgBouncer) run then; they refuse to run as root. Returns whether we are root.
 * @param {string[]} paths
 */
export function giveToPostgres(...paths) {
  if (!asRoot()) return false;
  const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
  for (const path of paths) chownSync(path, uid, gid);
  return true;
}

/**
 * @param {{ statements?: boolean, durable?: boolean }} [options] `statements`: load
 *   pg_stat_statements (the benchmark counts the statements a round trip issues); `durable`:
 *   PostgreSQL's defaults (fsync and full-page writes on: every durable commit waits for its WAL
 *   to reach the disk) instead of fsync off
 * @returns {Promise<{ url: string, stop(): void }>}
 */
export async function startPostgres({ statements = false, durable = false } = {}) {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), "interlude-pg-"));
  giveToPostgres(dir);
  const data = join(dir, "data");
  const port = await freePort();
  const run = (command, args) => {
    const file = join(bin, command);
    const [exe, argv] = asRoot() ? ["runuser", ["-u", "postgres", "--", file, ...args]] : [file, args];
    execFileSync(exe, argv, { stdio: "pipe", cwd: dir });
  };
  try {
    run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
    const settings = [
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`,
      durable ? "" : "-c fsync=off -c full_page_writes=off",
      statements ? "-c shared_preload_libraries=pg_stat_statements" : "",
    ];
    const options = settings.filter(Boolean).join(" ");
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
