/**
 * A throwaway PostgreSQL cluster for workload 7, started like the test suite does
 * (test/setup/servers.ts): initdb into a temp dir, a random port on 127.0.0.1, run as the
 * `postgres` user when we are root, stopped and deleted afterwards. Returns undefined (and the
 * reason) when no PostgreSQL binaries are installed.
 */
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

function postgresBin() {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "pg_ctl"))) : [];
  if (versions.length === 0) return undefined;
  return join(root, versions.sort((a, b) => Number(b) - Number(a))[0], "bin");
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const asRoot = () => process.getuid?.() === 0;

/** `{ url, stop() }`, or `{ skip: reason }`. */
export async function startPostgres() {
  const bin = postgresBin();
  if (!bin) return { skip: "no PostgreSQL binaries in /usr/lib/postgresql/<version>/bin (apt-get install postgresql), and no BENCH_POSTGRES_URL" };
  const dir = mkdtempSync(join(tmpdir(), "interlude-bench-pg-"));
  if (asRoot()) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, "data");
  const port = await freePort();
  const run = (command, args) => {
    const file = join(bin, command);
    const [exe, argv] = asRoot() ? ["runuser", ["-u", "postgres", "--", file, ...args]] : [file, args];
    execFileSync(exe, argv, { stdio: "pipe", cwd: dir });
  };
  try {
    run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200`;
    run("pg_ctl", ["-D", data, "-l", join(dir, "postgres.log"), "-o", options, "-w", "-t", "60", "start"]);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    return { skip: `PostgreSQL did not start: ${error.message}` };
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
