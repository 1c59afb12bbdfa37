/**
 * A throwaway PostgreSQL cluster on loopback, shared by the test run (servers.ts) and the
 * benchmarks: initdb into a temp dir, a random free port on 127.0.0.1, run as the `postgres`
 * user when we are root (PostgreSQL refuses to run as root); stopped and deleted with `stop()`.
 * The tests run it with fsync off (they check behaviour, and a crash of the throwaway cluster
 * loses nothing anyone keeps); the benchmarks with PostgreSQL's own durability settings, as a
 * deployment runs it.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
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
 * A CA of its own and the certificate it signs for 127.0.0.1, made with openssl in `dir`, as a
 * managed database's provider signs its servers' (a CA Node does not know). Returns the CA's file.
 * @param {string} dir
 */
function certify(dir) {
  const ssl = (...args) => execFileSync("openssl", args, { stdio: "pipe", cwd: dir });
  ssl(
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-days",
    "2",
    "-subj",
    "/CN=Interlude test CA",
    "-keyout",
    "ca.key",
    "-out",
    "ca.pem",
  );
  ssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", "server.key", "-out", "server.csr");
  writeFileSync(join(dir, "names.cnf"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  ssl(
    "x509",
    "-req",
    "-in",
    "server.csr",
    "-CA",
    "ca.pem",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "2",
    "-extfile",
    "names.cnf",
    "-out",
    "server.pem",
  );
  // PostgreSQL refuses a key others may read.
  chmodSync(join(dir, "server.key"), 0o600);
  giveToPostgres(join(dir, "server.key"), join(dir, "server.pem"));
  return join(dir, "ca.pem");
}

/**
 * @param {{ statements?: boolean, durable?: boolean, ssl?: boolean }} [options] `statements`: load
 *   pg_stat_statements (the benchmark counts the statements a round trip issues); `durable`:
 *   PostgreSQL's defaults (fsync and full-page writes on: every durable commit waits for its WAL
 *   to reach the disk) instead of fsync off; `ssl`: SSL offered, with a certificate signed by a
 *   CA of its own (`caFile`)
 * @returns {Promise<{ url: string, caFile?: string, crashAndRestart(): void, stop(): void }>}
 *   `crashAndRestart()`: stopped as a crash stops it (immediate: no shutdown checkpoint, WAL
 *   not yet written is lost), then started again on the same data, which it recovers from its
 *   WAL
 */
export async function startPostgres({ statements = false, durable = false, ssl = false } = {}) {
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
  let caFile;
  let start;
  // As a crash stops it: no shutdown checkpoint, the log not yet written lost.
  const stopNow = () => run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
  try {
    run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
    if (ssl) caFile = certify(dir);
    const settings = [
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200`,
      durable ? "" : "-c fsync=off -c full_page_writes=off",
      statements ? "-c shared_preload_libraries=pg_stat_statements" : "",
      ssl ? `-c ssl=on -c ssl_cert_file=${join(dir, "server.pem")} -c ssl_key_file=${join(dir, "server.key")}` : "",
    ];
    const options = settings.filter(Boolean).join(" ");
    start = () =>
      run("pg_ctl", ["-D", data, "-l", join(dir, "postgres.log"), "-o", options, "-w", "-t", "60", "start"]);
    start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    caFile,
    crashAndRestart() {
      stopNow();
      start();
    },
    stop() {
      try {
        stopNow();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
