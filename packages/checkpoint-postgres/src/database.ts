/**
 * The database a saver or a store works in: its pool, and its tables, set up once before first
 * use. A pool made from a connection string belongs to its user, which ends it when it closes; a
 * pool passed in is left open for whoever passed it (the server shares one between the store and
 * the saver).
 *
 * The tables live in the connections' search_path, or in the `schema` given (LangGraph's option),
 * which setup creates if it is missing. A pool passed in with a schema is copied: its
 * connections are its owner's, whose own statements a search_path set on them would move.
 */
import { InvalidSaverOptionError, StorageError } from "@interlude/core";
import pg from "pg";
import { endPool, storageError, withPoolClient } from "./pool.js";
import { checkSessions } from "./session-check.js";
import { ownSessions, setsSessions } from "./session-settings.js";
import { setupAdvice } from "./setup-advice.js";

/** What a failed setup advises: nothing of a thread's was at stake, the connection may be wrong. */
const SETUP_ADVICE =
  "Nothing was written. Check the connection string, and that PostgreSQL is up and accepts its user and database; the next call sets up again.";

export interface DatabaseOptions {
  /** Sets up the tables (migrations, schema.ts): idempotent, safe from several processes at once. */
  migrate: (client: pg.PoolClient) => Promise<void>;
  /** The operation a failed setup is reported as (a StorageError naming it). */
  setupOperation: string;
  /** Set the tables up on first use (false: the caller runs `setup()`, or migrations run separately). */
  autoSetup: boolean;
  /** The schema the tables live in; undefined: the connections' search_path. */
  schema?: string;
}

export class Database {
  readonly pool: pg.Pool;
  /** The pool passed in, if one was (`pool` is a copy of it when a schema is given). */
  private readonly given?: pg.Pool;
  private readonly ownsPool: boolean;
  private setupDone: Promise<void> | undefined;
  /** `setupDone` has resolved: no call waits for it any more (an await costs a promise and a turn on every statement). */
  private isSetUp = false;

  /** `pool`: a pool passed in, or what to make one of (a connection string, or pg's pool options). */
  constructor(
    pool: pg.Pool | string | pg.PoolConfig,
    private readonly options: DatabaseOptions,
  ) {
    const { schema } = options;
    if (pool instanceof pg.Pool) {
      this.given = pool;
      this.pool = schema === undefined ? pool : copyOf(pool);
    } else this.pool = new pg.Pool(typeof pool === "string" ? { connectionString: pool } : pool);
    this.ownsPool = this.pool !== this.given;
    if (this.ownsPool) {
      // Idle clients dying is reported on their next use.
      this.pool.on("error", () => {});
      ownSessions(this.pool, schema);
    }
  }

  /**
   * Checks that the connections keep their sessions (session-check.ts), then creates or upgrades
   * the tables, once; a setup that failed is tried again by the next call.
   */
  setup(): Promise<void> {
    this.setupDone ??= withPoolClient(this.pool, this.options.setupOperation, async (client) => {
      await checkSessions(this.pool, client);
      // A pool whose sessions its owner sets up (not the server's, which sets them as the saver would).
      if (!setsSessions(this.pool)) await refuseOtherIsolation(client);
      if (this.options.schema !== undefined) await createSchema(client, this.options.schema);
      await this.options.migrate(client);
    }).then(
      () => {
        this.isSetUp = true;
      },
      (error: unknown) => {
        this.setupDone = undefined;
        if (!(error instanceof StorageError)) throw error;
        const advice = setupAdvice(error.cause);
        throw new StorageError(
          this.options.setupOperation,
          error.cause,
          advice ? `Nothing was written. ${advice}` : SETUP_ADVICE,
        );
      },
    );
    return this.setupDone;
  }

  /** The setup to wait for before a statement; undefined once it is done (or left to the caller: autoSetup off). */
  ready(): Promise<void> | undefined {
    return this.options.autoSetup && !this.isSetUp ? this.setup() : undefined;
  }

  /** Runs `body` on a pooled connection of its own once the tables are set up (pool.ts, `withPoolClient`). */
  async withClient<T>(operation: string, body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const ready = this.ready();
    if (ready) await ready;
    return withPoolClient(this.pool, operation, body);
  }

  /** Runs `body` once the tables are set up; a failure becomes a StorageError naming `operation`. */
  async guard<T>(operation: string, body: () => Promise<T>): Promise<T> {
    try {
      const ready = this.ready();
      if (ready) await ready;
      return await body();
    } catch (error) {
      throw storageError(operation, error);
    }
  }

  /** Runs `body` in a transaction on a pooled connection of its own: committed if it resolves, rolled back if not. */
  transaction<T>(operation: string, body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.withClient(operation, async (client) => {
      await client.query("BEGIN");
      try {
        const result = await body(client);
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
    });
  }

  /** Ends the pool if it was made here (`always`: also one passed in, as LangGraph's `end()` does). */
  async close(always = false): Promise<void> {
    if (this.ownsPool) await endPool(this.pool);
    if (always && this.given) await endPool(this.given);
  }
}

/**
 * A pool passed in keeps its sessions' settings (its owner's transactions keep their level), so
 * one whose transactions default to another level than read committed, which every statement
 * here is written for, is refused (session-settings.ts) rather than failing at random under load.
 */
async function refuseOtherIsolation(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ level: string }>(
    "SELECT current_setting('default_transaction_isolation') AS level",
  );
  const level = rows[0]?.level;
  if (level !== "read committed")
    throw new InvalidSaverOptionError(
      "The pool's default_transaction_isolation",
      level,
      "read committed, which Interlude's statements are written for: pass a connection string instead (its connections are then set so), " +
        "or set it for the pool's user (ALTER ROLE <user> SET default_transaction_isolation = 'read committed')",
    );
}

/** A pool of connections of its own with `pool`'s settings (whose password is not enumerable). */
function copyOf(pool: pg.Pool): pg.Pool {
  return new pg.Pool({ ...pool.options, password: pool.options.password });
}

/**
 * Creates `schema` unless it exists, as LangGraph's savers do at setup: a user that may not create
 * schemas can still work in one made for it.
 */
async function createSchema(client: pg.PoolClient, schema: string): Promise<void> {
  const { rowCount } = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
  if (rowCount) return;
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${pg.escapeIdentifier(schema)}`).catch((error: { code?: string }) => {
    // Another process made it at the same moment.
    if (error.code !== "23505") throw error;
  });
}
