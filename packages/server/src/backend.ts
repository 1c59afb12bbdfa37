/**
 * Opens everything a server, a worker or the CLI's local mode needs: the database (SQLite
 * file or PostgreSQL), the checkpoint saver and the server tables in it, the graphs, the bus
 * and the dispatcher. SQLite runs everything in this process; PostgreSQL shares work through
 * pg-boss and LISTEN/NOTIFY.
 */
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { type JoinedSaver, PostgresSaver, PostgresStore } from "@interlude/checkpoint-postgres";
import { ownSessions } from "@interlude/checkpoint-postgres/session-settings";
import { SqliteSaver, SqliteStore, startWalCheckpointer } from "@interlude/checkpoint-sqlite";
import type { BaseStore } from "@interlude/core";
import type { SaverKit } from "@interlude/core/saver-kit";
import Database from "better-sqlite3";
import pg from "pg";
import { ensureDefaultAssistants } from "./assistants/defaults.js";
import type { ServerConfig } from "./config/config.js";
import { ConfigError } from "./config/errors.js";
import { GraphRegistry } from "./config/graphs.js";
import { type PostgresConnections, parseConnections, shareConnections } from "./config/postgres-connections.js";
import { checkConnectionString, placeOf, startupFailure } from "./config/postgres-url.js";
import { type ConnectionPool, newProcessId, type ServerContext } from "./context.js";
import { startCronSweeper } from "./crons/sweeper.js";
import { type Bus, LocalBus, PgBus } from "./events/bus.js";
import { RunBroker } from "./runs/broker.js";
import { abortLocal } from "./runs/cancel.js";
import { drainLocal } from "./runs/drain.js";
import { RunEventRelay } from "./runs/event-relay.js";
import { recoverLost, startLeases } from "./runs/lease.js";
import { LocalDispatcher } from "./runs/local-dispatcher.js";
import { PgBossDispatcher } from "./runs/pgboss-dispatcher.js";
import { PgDb, SqliteDb, type Statement } from "./store/db.js";
import { type DeploymentNames, readDeploymentNames } from "./store/deployment-names.js";
import { retryUntilStored } from "./store/retry-until-stored.js";
import { deleteOldRunEvents } from "./store/run-events.js";
import { Store } from "./store/store.js";
import { DEFAULT_SWEEP_MS, type TtlPolicy } from "./threads/ttl.js";
import { startTtlSweeper } from "./threads/ttl-sweeper.js";
import { checkpointValues } from "./threads/values.js";

export interface BackendOptions {
  /** The loaded langgraph.json (its graphs are imported; its directory holds the default SQLite file). */
  config?: ServerConfig;
  /** Graphs given in-process instead of (or besides) the config's. */
  graphs?: Record<string, unknown>;
  /** SQLite file (default `<config dir>/.interlude/interlude.sqlite`). */
  sqlitePath?: string;
  /** PostgreSQL connection string: shared storage for several processes. */
  postgresUrl?: string;
  /**
   * A thread's state larger than this (bytes of JSON; default 16 kB) is not copied into the
   * thread's row at every answer: reads load it from the checkpoint it came from (store/thread-values.ts).
   */
  rowValuesLimit?: number;
  /**
   * Lease of a running run (ms; default INTERLUDE_RUN_LEASE_MS, else 30 s): a run silent for
   * longer belongs to a dead process and is taken over.
   */
  runLeaseMs?: number;
  /**
   * A run's claim on its thread (ms; default INTERLUDE_CLAIM_TTL_MS, else the runtime's 30 s):
   * after a crash, the thread is busy for at most this long. Keep it no longer than the lease.
   */
  claimTtlMs?: number;
  /**
   * How long a cancelled run waits for its nodes to honour their AbortSignal before abandoning
   * them (ms; default INTERLUDE_ABORT_GRACE_MS, else 5 s). What an abandoned node returns later is dropped.
   */
  abortGraceMs?: number;
  /**
   * At shutdown, how long runs may take to reach their next step boundary, where they stop with
   * the step saved, before they are aborted (ms; default INTERLUDE_DRAIN_GRACE_MS, else 10 s).
   */
  drainGraceMs?: number;
  /** Longest a run may execute (ms; default INTERLUDE_RUN_TIMEOUT_MS, else none); a run's own `timeout_seconds` wins. */
  runTimeoutMs?: number;
  /** PostgreSQL: runs this process executes at once (0: enqueue only). */
  concurrency?: number;
  /**
   * PostgreSQL: the most connections this process opens (default INTERLUDE_POSTGRES_CONNECTIONS,
   * else 25; at least 7): config/postgres-connections.ts.
   */
  postgresConnections?: number;
  /**
   * The clock (ms since the epoch; default Date.now) against which interrupts' ages, due
   * deadlines and threads' TTLs are read: a test moves it forward instead of waiting.
   */
  now?: () => number;
  /** Threads' TTLs (default: the config's `checkpointer.ttl`, else none by default, swept every 5 minutes). */
  threadTtl?: TtlPolicy;
  /**
   * How often to look for due crons (ms; default INTERLUDE_CRON_SWEEP_MS, else 10 s): a cron's
   * run is made up to this late, and a schedule coming due more often makes one run per look.
   */
  cronSweepMs?: number;
}

export interface Backend {
  ctx: ServerContext;
  /** Where it keeps everything, for people: a SQLite file's path, or PostgreSQL's host, database and schema (no credentials). */
  storage: string;
  /**
   * Takes no more work and drains the runs executing here (runs/drain.ts): each records its
   * outcome, or goes back to the queue, and its waiters are answered. `close` does it first.
   */
  drain(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A duration from the environment, else `fallback` (tests shorten the lease and claim so a crash
 * is recovered in seconds).
 */
function msFromEnv(name: string, fallback: number): number;
function msFromEnv(name: string): number | undefined;
function msFromEnv(name: string, fallback?: number): number | undefined {
  const text = process.env[name];
  if (text === undefined || text === "") return fallback;
  const ms = Number(text);
  if (!Number.isFinite(ms) || ms <= 0)
    throw new ConfigError(
      `${name}=${text} is not a positive number of milliseconds; unset it for the default${fallback === undefined ? "" : ` (${fallback})`}.`,
    );
  return ms;
}

export function defaultSqlitePath(config?: ServerConfig): string {
  return join(config?.dir ?? process.cwd(), ".interlude", "interlude.sqlite");
}

interface Storage {
  saver: SaverKit;
  /** LangGraph's store (long-term memory), in the same database. */
  memory: BaseStore;
  headStatement?: (threadId: string) => Statement;
  joinedSaver?: JoinedSaver;
  store: Store;
  bus: Bus;
  /** Backend.storage. */
  place: string;
  /** PostgreSQL: what the deployment's processes share beyond its tables. */
  names?: DeploymentNames;
  pools?: readonly ConnectionPool[];
  close(): Promise<void>;
}

async function openSqlite(path: string): Promise<Storage> {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma("busy_timeout = 5000");
  if (path !== ":memory:") db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  const saver = new SqliteSaver(db, { groupCommit: true });
  const memory = new SqliteStore(db);
  const checkpointer = startWalCheckpointer(db);
  // One process owns a SQLite file's runs and assistants, so assistants can be kept in memory.
  const store = new Store(new SqliteDb(db), { assistantCacheMs: Number.POSITIVE_INFINITY });
  await store.setup();
  return {
    saver,
    memory,
    store,
    bus: new LocalBus(),
    place: path,
    close: async () => {
      await saver.close();
      await checkpointer?.stop();
      db.close();
    },
  };
}

/** How long a process trusts its cached assistants without a change told on the bus (one lost while LISTEN reconnected). */
const ASSISTANT_CACHE_MS = 5_000;

/**
 * The store's transactions read the checkpoint head while they hold their connection
 * (queueing a run claims it), so the saver has a pool of its own: a saver call never waits for
 * a store connection, hence a store transaction waiting for a saver connection always gets one,
 * however many requests hold the others. LISTEN has its own connection outside both pools.
 */
async function openPostgres(
  url: string,
  processId: string,
  connections: PostgresConnections,
  runLeaseMs: number,
): Promise<Storage> {
  checkConnectionString(url);
  // Named after the process and the pool in pg_stat_activity, unless the URL names them: an
  // operator sees who holds a connection (a long transaction, a lock waited for).
  const named = (pool: string) => ({ fallback_application_name: `interlude ${processId} ${pool}` });
  const storePool = new pg.Pool({ connectionString: url, max: connections.store, ...named("store") });
  const saverPool = new pg.Pool({ connectionString: url, max: connections.saver, ...named("saver") });
  // An idle client dying is reported on its next use.
  for (const pool of [storePool, saverPool]) pool.on("error", () => undefined);
  // The saver's connections are this process's, set up as its own (session-settings.ts); the
  // store's set themselves up (store/db.ts).
  ownSessions(saverPool);
  const saver = new PostgresSaver(saverPool);
  // Nodes' store calls take the saver's connections, which nothing holds while it waits for another.
  const memory = new PostgresStore(saverPool);
  let opened: PgBus | undefined;
  try {
    // Sets up the store pool's connections, this first one included (store/db.ts).
    const db = new PgDb(storePool);
    const names = await readDeploymentNames(db);
    // Its LISTEN connection is checked as often as this process renews its runs' leases.
    const bus = new PgBus(url, storePool, processId, names, runLeaseMs / 3);
    opened = bus;
    // Assistants are cached in every process; a change is told to the others on the bus.
    const store = new Store(db, {
      assistantCacheMs: ASSISTANT_CACHE_MS,
      onAssistantChange: (id) => bus.publish({ type: "assistant.changed", assistant_id: id }),
    });
    bus.subscribe((event) => event.type === "assistant.changed" && store.assistants.forget(event.assistant_id));
    await saver.setup();
    await memory.setup();
    await store.setup();
    // Events left by runs whose process died before it could delete them.
    await deleteOldRunEvents(store.db, new Date(Date.now() - 10 * 60_000).toISOString());
    await bus.start();
    const place = `PostgreSQL at ${placeOf(url)}, schema ${names.schema}`;
    return postgresStorage(saver, memory, store, bus, names, place, [storePool, saverPool]);
  } catch (error) {
    await Promise.allSettled([opened?.close(), storePool.end(), saverPool.end()]);
    throw startupFailure(url, error);
  }
}

function postgresStorage(
  saver: PostgresSaver,
  memory: PostgresStore,
  store: Store,
  bus: PgBus,
  names: DeploymentNames,
  place: string,
  [storePool, saverPool]: [pg.Pool, pg.Pool],
): Storage {
  return {
    saver,
    memory,
    headStatement: (threadId) => saver.headStatement(threadId),
    // The saver connects to the store's database: its statements may ride in the store's transactions.
    joinedSaver: saver.joined,
    store,
    bus,
    place,
    names,
    pools: [storePool, saverPool],
    close: async () => {
      await bus.close();
      await saver.close();
      await Promise.all([storePool.end(), saverPool.end()]);
    },
  };
}

/** Options that only PostgreSQL has, refused on SQLite rather than ignored. */
function refusePostgresOnly(options: BackendOptions): void {
  if (options.postgresUrl) return;
  for (const [name, value] of [
    ["concurrency", options.concurrency],
    ["postgresConnections", options.postgresConnections],
  ] as const)
    if (value !== undefined)
      throw new ConfigError(
        `${name} applies to PostgreSQL storage only (one SQLite process executes every run itself); pass postgresUrl or leave it out.`,
      );
}

export async function openBackend(options: BackendOptions): Promise<Backend> {
  refusePostgresOnly(options);
  const limit = options.rowValuesLimit;
  if (limit !== undefined && !(limit >= 0))
    throw new ConfigError(
      `rowValuesLimit must be a number of bytes, 0 or more (Infinity keeps every state in the thread's row); got ${limit}.`,
    );
  const processId = newProcessId();
  // The environment's count is read (and checked) only for PostgreSQL; SQLite opens no pool.
  const connections = shareConnections(
    options.postgresUrl
      ? (options.postgresConnections ??
          parseConnections(process.env.INTERLUDE_POSTGRES_CONNECTIONS, "INTERLUDE_POSTGRES_CONNECTIONS"))
      : undefined,
  );
  const runLeaseMs = options.runLeaseMs ?? msFromEnv("INTERLUDE_RUN_LEASE_MS", 30_000);
  const storage = options.postgresUrl
    ? await openPostgres(options.postgresUrl, processId, connections, runLeaseMs)
    : await openSqlite(options.sqlitePath ?? defaultSqlitePath(options.config));
  try {
    const bound = { saver: storage.saver, store: storage.memory };
    const loaded = options.config ? await GraphRegistry.load(options.config, bound) : undefined;
    const given = options.graphs ? await GraphRegistry.of(options.graphs, bound) : undefined;
    const graphs =
      loaded && given ? GraphRegistry.merge(loaded, given) : (loaded ?? given ?? (await GraphRegistry.of({}, bound)));
    const ctx: ServerContext = {
      store: storage.store,
      saver: storage.saver,
      memory: storage.memory,
      headStatement: storage.headStatement,
      joinedSaver: storage.joinedSaver,
      graphs,
      bus: storage.bus,
      broker: new RunBroker(),
      processId,
      executesRuns: !(options.postgresUrl && options.concurrency === 0),
      dispatcher: undefined as never,
      executing: new Map(),
      runLeaseMs,
      claimTtlMs: options.claimTtlMs ?? msFromEnv("INTERLUDE_CLAIM_TTL_MS"),
      abortGraceMs: options.abortGraceMs ?? msFromEnv("INTERLUDE_ABORT_GRACE_MS", 5_000),
      drainGraceMs: options.drainGraceMs ?? msFromEnv("INTERLUDE_DRAIN_GRACE_MS", 10_000),
      runTimeoutMs: options.runTimeoutMs ?? msFromEnv("INTERLUDE_RUN_TIMEOUT_MS"),
      now: options.now ?? Date.now,
      threadTtl: options.threadTtl ?? options.config?.threadTtl ?? { sweepMs: DEFAULT_SWEEP_MS },
      cronSweepMs: options.cronSweepMs ?? msFromEnv("INTERLUDE_CRON_SWEEP_MS", 10_000),
      // Several processes: a run's stream may be followed from any of them.
      runEvents: storage.names
        ? new RunEventRelay(storage.store.db, storage.bus, storage.names.watchChannel)
        : undefined,
      pools: storage.pools,
      runsEnded: new Map(),
    };
    ctx.store.threadValues.readFromCheckpoints(
      (thread, checkpointId) => checkpointValues(ctx, thread, checkpointId),
      options.rowValuesLimit,
    );
    const unsubscribe = ctx.bus.subscribe((event) => {
      // Not executing here: dropped while queued for this process, whose waiters follow the store from now on.
      if (event.type === "run.cancel" && !abortLocal(ctx, event.run_id, event.action))
        ctx.broker.closeOpen(event.run_id);
      if (event.type === "answers.settle") ctx.executing.get(event.run_id)?.askToSettle();
      if (event.type === "run.follow") void ctx.runEvents?.answer(event, ctx.broker.get(event.run_id), ctx.processId);
    });
    if (options.postgresUrl) {
      const url = options.postgresUrl;
      const dispatcher = new PgBossDispatcher(ctx, {
        connectionString: url,
        schema: storage.names!.queueSchema,
        connections: connections.queue,
        concurrency: options.concurrency,
      });
      ctx.dispatcher = dispatcher;
      // pg-boss sets its schema up here: a failure is the database's, said as the saver's would be.
      await dispatcher.start().catch((error: unknown) => {
        throw startupFailure(url, error);
      });
    } else {
      const dispatcher = new LocalDispatcher(ctx);
      ctx.dispatcher = dispatcher;
      await dispatcher.start();
    }
    await ensureDefaultAssistants(ctx);
    const stopLeases = startLeases(ctx);
    const stopSweeping = startTtlSweeper(ctx);
    const stopCrons = startCronSweeper(ctx);
    // SQLite has one server process per file: what it finds running was its predecessor's. A
    // database that refuses the writes does not keep the server from starting: tried again until
    // it takes them (this process's own runs, executing, are never taken for lost).
    await recoverLost(ctx, !options.postgresUrl).catch((error: unknown) => {
      console.error("[interlude] runs of a process that is gone not recovered yet (retrying):", error);
      retryUntilStored(() => recoverLost(ctx, !options.postgresUrl));
    });
    let drained: Promise<void> | undefined;
    const drain = () =>
      (drained ??= (async () => {
        stopLeases();
        await stopSweeping();
        await stopCrons();
        unsubscribe();
        // No new work first, so that none starts after the runs under way are told to stop.
        ctx.dispatcher.stopTaking();
        // Each run drains to its next step boundary (aborted if it takes too long) and records
        // its outcome, or goes back to the queue, before storage closes.
        await Promise.all([...ctx.executing].map(([runId, entry]) => drainLocal(ctx, runId, entry)));
      })());
    return {
      ctx,
      storage: storage.place,
      drain,
      async close() {
        await drain();
        await ctx.dispatcher.close();
        await storage.close();
      },
    };
  } catch (error) {
    await storage.close().catch(() => undefined);
    throw error;
  }
}
