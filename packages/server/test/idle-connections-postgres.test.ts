/**
 * The connections a server keeps while they idle:
 * - its LISTEN connection, dropped without a word by the network (a NAT or a load balancer
 *   forgetting an idle flow): checked as often as leases are renewed, found out and opened again,
 *   and its inbox streams told to list again (events/listener-liveness.ts). It used to stay deaf
 *   until TCP gave up, hours later;
 * - every connection, on a database whose `idle_session_timeout` is set: none is ended by it (a
 *   pooled one given out as it ended failed its request with a 503, the LISTEN one missed events);
 *   each is named after its process and pool in `pg_stat_activity`.
 */
import { connect, createServer, type Server, type Socket } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PgBus } from "../dist/events/bus.js";
import { PgDb } from "../dist/store/db.js";
import { deploymentNames } from "../dist/store/deployment-names.js";
import { followSse, type TestServer, testServer, until } from "./helpers.js";
import { databaseForFile, testDatabase } from "./processes.js";

const database = databaseForFile("interlude_idle_conns");

/** A TCP proxy to `target` whose connections can be silenced one by one: nothing flows either way any more, nothing is closed. */
async function silencingProxy(target: URL) {
  const pairs: Array<{ client: Socket; upstream: Socket }> = [];
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    pairs.push({ client, upstream });
    client.pipe(upstream);
    upstream.pipe(client);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      a.on("error", () => b.destroy());
      a.on("close", () => b.destroy());
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const proxied = new URL(target.toString());
  proxied.port = String((server.address() as { port: number }).port);
  return {
    url: proxied.toString(),
    /** Silences the connection whose end toward PostgreSQL is `port` (pg_stat_activity's client_port). */
    silence(port: number): boolean {
      const pair = pairs.find((p) => p.upstream.localPort === port);
      if (!pair) return false;
      pair.client.unpipe(pair.upstream);
      pair.upstream.unpipe(pair.client);
      pair.client.pause();
      pair.upstream.pause();
      return true;
    },
    close() {
      for (const { client, upstream } of pairs) client.destroy(), upstream.destroy();
      server.close();
    },
  };
}

let proxy: Awaited<ReturnType<typeof silencingProxy>>;
const servers: TestServer[] = [];

beforeAll(async () => {
  proxy = await silencingProxy(new URL(database.url));
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.dispose()));
  proxy?.close();
});

it("a LISTEN connection the network silenced is found out and opened again, and the inbox streams list again", async () => {
  // Leases renewed (and the connection checked) every second.
  const deaf = await testServer({ postgresUrl: proxy.url, runLeaseMs: 3_000 });
  const other = await testServer({ postgresUrl: database.url });
  servers.push(deaf, other);
  const stream = await followSse(`${deaf.url}/inbox/events`);
  try {
    await until(async () => stream.events.some((e) => e.event === "ready"));
    const listener = await database.sql.query("SELECT client_port FROM pg_stat_activity WHERE application_name = $1", [
      `interlude ${deaf.backend.ctx.processId}`,
    ]);
    expect(proxy.silence(listener.rows[0].client_port)).toBe(true);
    const resync = await until(async () => stream.events.find((e) => e.event === "resync"), 10_000);
    expect(Date.parse(resync.data.at)).toBeGreaterThan(0);
    // Heard again: a question asked through the other server reaches the stream.
    const thread = await other.client().threads.create();
    await other.client().runs.wait(thread.thread_id, "loop", { input: { rounds: 1 } });
    await until(async () =>
      stream.events.find((e) => e.event === "interrupt.created" && e.data.thread_id === thread.thread_id),
    );
  } finally {
    stream.close();
  }
}, 30_000);

it("a server whose LISTEN connection the network silenced closes promptly all the same", async () => {
  const deaf = await testServer({ postgresUrl: proxy.url });
  const listener = await database.sql.query("SELECT client_port FROM pg_stat_activity WHERE application_name = $1", [
    `interlude ${deaf.backend.ctx.processId}`,
  ]);
  expect(proxy.silence(listener.rows[0].client_port)).toBe(true);
  const started = Date.now();
  const closed = await Promise.race([
    deaf.dispose().then(() => true),
    new Promise((resolve) => setTimeout(() => resolve(false), 8_000)),
  ]);
  expect(closed).toBe(true);
  expect(Date.now() - started).toBeLessThan(5_000);
}, 30_000);

/** The process ids of the sessions on database `name`. */
async function sessionsOf(name: string): Promise<number[]> {
  const { rows } = await database.sql.query("SELECT pid FROM pg_stat_activity WHERE datname = $1 ORDER BY pid", [name]);
  return rows.map((row) => row.pid as number);
}

const IDLE_TIMEOUT = { idle_session_timeout: "300ms" };

it("on a database with an idle-session timeout, no connection the server keeps is ended by it", async () => {
  const url = await testDatabase("interlude_idle_timeout", IDLE_TIMEOUT);
  const name = new URL(url).pathname.slice(1);
  const server = await testServer({ postgresUrl: url });
  servers.push(server);
  const client = server.client();
  const thread = await client.threads.create();
  await client.runs.wait(thread.thread_id, "loop", { input: { rounds: 3 } });
  await client.runs.wait(thread.thread_id, "loop", { command: { resume: "a0" } });
  // The server's pools, pg-boss's and the LISTEN connection.
  const before = await sessionsOf(name);
  expect(before.length).toBeGreaterThan(2);
  // Each named after the process and its pool, for whoever reads pg_stat_activity.
  const { rows } = await database.sql.query(
    "SELECT DISTINCT application_name FROM pg_stat_activity WHERE datname = $1 ORDER BY 1",
    [name],
  );
  const id = server.backend.ctx.processId;
  expect(rows.map((row) => row.application_name)).toEqual(
    expect.arrayContaining([`interlude ${id}`, `interlude ${id} saver`, `interlude ${id} store`]),
  );
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(await sessionsOf(name)).toEqual(before);
  const answered = await client.runs.wait(thread.thread_id, "loop", { command: { resume: "a1" } });
  expect((answered as { answers: string[] }).answers).toEqual(["a0", "a1"]);
}, 30_000);

it("a store connection the bus opens first (a NOTIFY, a check of a listener) is set up as the store's", async () => {
  const url = await testDatabase("interlude_idle_bus", IDLE_TIMEOUT);
  const name = new URL(url).pathname.slice(1);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on("error", () => undefined);
  try {
    // The store's database over the pool: registers the pool's session setup (store/db.ts).
    new PgDb(pool);
    const bus = new PgBus(url, pool, "idle-bus", deploymentNames("public"));
    // Each opens a connection of its own: nothing else has used the pool.
    await Promise.all([bus.publish({ type: "run.queued" }), bus.hears("nobody")]);
    const opened = await sessionsOf(name);
    expect(opened.length).toBeGreaterThanOrEqual(2);
    const settings = await pool.query("SELECT current_setting('enable_seqscan') AS seqscan");
    expect(settings.rows[0].seqscan).toBe("off");
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await sessionsOf(name)).toEqual(opened);
    await bus.publish({ type: "run.queued" });
  } finally {
    await pool.end();
  }
}, 30_000);
