/**
 * A deployment connected through PostgreSQL's Unix socket: the connection string's host is a
 * directory (`?host=/dir`), as for a database on the same machine or Cloud SQL's `/cloudsql/...`
 * on Cloud Run. Every connection the processes open (store, saver, pg-boss, the bus's LISTEN)
 * goes through it, and the banner names the socket, not a TCP address it does not use.
 */
import pg from "pg";
import { beforeAll, expect, it } from "vitest";
import { clientOf, FIXTURE_CONFIG } from "./helpers.js";
import { type Child, deploymentOnPostgres, serve } from "./processes.js";

const deployment = deploymentOnPostgres("interlude_socket");
let socket = { dir: "", port: "", database: "" };

/** The deployment's TCP URL, for the test's own SQL (its connections are told apart from the processes'). */
let tcpUrl = "";

beforeAll(async () => {
  tcpUrl = deployment.database;
  const sql = new pg.Client({ connectionString: tcpUrl });
  await sql.connect();
  try {
    const [dirs, port] = await Promise.all([sql.query("SHOW unix_socket_directories"), sql.query("SHOW port")]);
    const url = new URL(tcpUrl);
    socket = {
      dir: String(dirs.rows[0].unix_socket_directories).split(",")[0]!.trim(),
      port: String(port.rows[0].port),
      database: url.pathname.slice(1),
    };
    deployment.database = `postgres://${url.username}@/${socket.database}?host=${encodeURIComponent(socket.dir)}&port=${socket.port}`;
  } finally {
    await sql.end();
  }
});

it("a server and a worker on the socket pause, resume and run queued runs; their banners name the socket", async () => {
  // The server executes no run: every run goes through pg-boss to the worker.
  const server = await serve(["--config", FIXTURE_CONFIG, "--postgres", deployment.database, "--concurrency", "0"]);
  try {
    await pauseResumeAndQueue(server);
  } finally {
    await server.stop();
  }
});

async function pauseResumeAndQueue(server: Child & { url: string }) {
  const worker = await deployment.worker(FIXTURE_CONFIG);
  const client = clientOf(server.url);

  const thread = await client.threads.create();
  const paused = (await client.runs.wait(thread.thread_id, "approval", {
    input: { request: { service: "socket" } },
  })) as any;
  const interrupt = paused.__interrupt__[0];
  const done = (await client.runs.wait(thread.thread_id, "approval", {
    command: { resume: { [interrupt.id]: { type: "accept" } } },
  })) as any;
  expect(done.result).toBe("deployed socket@1.0.0 x3");

  const queued = await client.threads.create();
  const run = await client.runs.create(queued.thread_id, "slow", { input: { tag: "q", delay: 10 } });
  expect(((await client.runs.join(queued.thread_id, run.run_id)) as any).log).toEqual(["first:q", "second:q"]);

  const place = `socket ${socket.dir}/.s.PGSQL.${socket.port}/${socket.database}`;
  expect(server.output()).toContain(`  storage: PostgreSQL at ${place}, schema public\n`);
  expect(worker.output()).toContain(`; PostgreSQL at ${place}, schema public)`);

  // No process of the deployment reached PostgreSQL over TCP.
  const sql = new pg.Client({ connectionString: tcpUrl });
  await sql.connect();
  try {
    const { rows } = await sql.query<{ over_tcp: number; over_socket: number }>(
      `SELECT count(*) FILTER (WHERE client_addr IS NOT NULL)::int AS over_tcp,
              count(*) FILTER (WHERE client_addr IS NULL)::int AS over_socket
         FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
      [socket.database],
    );
    expect(rows[0]).toMatchObject({ over_tcp: 0 });
    expect(rows[0]!.over_socket).toBeGreaterThan(2);
  } finally {
    await sql.end();
  }
}
