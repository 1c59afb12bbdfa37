/**
 * `PostgresStore`: LangGraph's long-term memory store in PostgreSQL (pg), for
 * `compile({ store })`. Items live in one table keyed by namespace and key; the batch sequence,
 * filters and namespace listings are the core's `StoreKit`, so every store answers alike.
 */
import { type Item, type PutOperation, StoreKit, UnsupportedStoreOptionError } from "@interlude/core";
import pg from "pg";
import { withPoolClient } from "./pool.js";

/** Labels cannot contain ".", so the joined namespace splits back exactly. */
const JOIN = ".";

const MIGRATIONS: readonly string[] = [
  `CREATE TABLE interlude_store_items (
     namespace text NOT NULL, key text NOT NULL, value json NOT NULL,
     created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
     seq bigserial NOT NULL,
     PRIMARY KEY (namespace, key));
   CREATE INDEX interlude_store_items_prefix ON interlude_store_items (namespace text_pattern_ops);`,
];

export const STORE_SCHEMA_VERSION = MIGRATIONS.length;

/** Any fixed number, not the saver's: the advisory lock that serialises the store's migrations. */
const MIGRATION_LOCK = 7_214_530_982;

async function migrate(client: pg.PoolClient): Promise<void> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query(
      "CREATE TABLE IF NOT EXISTS interlude_store_schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    const { rows } = await client.query<{ version: number | null }>(
      "SELECT MAX(version) AS version FROM interlude_store_schema_version",
    );
    for (let version = (rows[0]?.version ?? 0) + 1; version <= MIGRATIONS.length; version++) {
      await client.query(MIGRATIONS[version - 1]!);
      await client.query("INSERT INTO interlude_store_schema_version (version) VALUES ($1)", [version]);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  }
}

interface Row {
  namespace: string;
  key: string;
  value: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
}

function itemOf(row: Row): Item {
  return {
    namespace: row.namespace.split(JOIN),
    key: row.key,
    value: row.value,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const COLUMNS = "namespace, key, value, created_at, updated_at";

/** LangGraph's `PostgresStoreConfig`, less what Interlude's store does not do (refused when given). */
export interface PostgresStoreConfig {
  connectionOptions: string | pg.PoolConfig;
  /** Create the table on first use (default true); false when migrations run separately (`setup()`). */
  ensureTables?: boolean;
  schema?: never;
  ttl?: never;
  index?: never;
  textSearchLanguage?: never;
}

const UNSUPPORTED: Record<string, string> = {
  schema: "Tables live in the connection's search_path; set it in connectionOptions (options: '-c search_path=...').",
  ttl: "Items do not expire; delete them with store.delete().",
  index: "Semantic search needs an embeddings index, which Interlude's stores do not have.",
  textSearchLanguage: "Full-text search is not implemented; search by namespace prefix and filter.",
};

export class PostgresStore extends StoreKit {
  readonly pool: pg.Pool;
  private readonly ownsPool: boolean;
  private readonly autoSetup: boolean;
  private ready: Promise<void> | undefined;

  /** `PostgresStore.fromConnString("postgres://user@host/db")`: the store owns (and ends) the pool. */
  static fromConnString(connectionString: string, options: Omit<PostgresStoreConfig, "connectionOptions"> = {}) {
    return new PostgresStore({ ...options, connectionOptions: connectionString });
  }

  /**
   * A pool shared with, say, the saver; or a connection string or LangGraph's config object
   * (`{ connectionOptions }`), when the store makes and ends its own pool.
   */
  constructor(pool: pg.Pool | string | PostgresStoreConfig) {
    super();
    const config = typeof pool === "string" ? { connectionOptions: pool } : pool instanceof pg.Pool ? undefined : pool;
    for (const option of Object.keys(UNSUPPORTED))
      if (config && (config as unknown as Record<string, unknown>)[option] !== undefined)
        throw new UnsupportedStoreOptionError(option, UNSUPPORTED[option]!);
    this.ownsPool = config !== undefined;
    this.autoSetup = config?.ensureTables ?? true;
    if (config === undefined) this.pool = pool as pg.Pool;
    else {
      const options = config.connectionOptions;
      this.pool = new pg.Pool(typeof options === "string" ? { connectionString: options } : options);
      this.pool.on("error", () => {});
    }
  }

  /** Creates the table; run on first use, safe to call from several processes at once. */
  setup(): Promise<void> {
    this.ready ??= this.withClient("store setup", migrate).catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  override start(): Promise<void> {
    return this.setup();
  }

  private async withClient<T>(operation: string, body: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    if (operation !== "store setup" && this.autoSetup) await this.setup();
    return withPoolClient(this.pool, operation, body);
  }

  private async rows(operation: string, sql: string, params: unknown[]): Promise<Row[]> {
    return this.withClient(operation, async (client) => (await client.query<Row>(sql, params)).rows);
  }

  protected async readItem(namespace: string[], key: string): Promise<Item | null> {
    const [row] = await this.rows(
      "store get",
      `SELECT ${COLUMNS} FROM interlude_store_items WHERE namespace = $1 AND key = $2`,
      [namespace.join(JOIN), key],
    );
    return row ? itemOf(row) : null;
  }

  protected async readItemsUnder(prefix: string[]): Promise<Item[]> {
    const joined = prefix.join(JOIN);
    // Whole labels only: "a.b" and what starts with "a.b." (not "a.bc").
    const rows = joined
      ? await this.rows(
          "store search",
          `SELECT ${COLUMNS} FROM interlude_store_items WHERE namespace = $1 OR left(namespace, $2) = $3 ORDER BY seq`,
          [joined, joined.length + 1, `${joined}${JOIN}`],
        )
      : await this.rows("store search", `SELECT ${COLUMNS} FROM interlude_store_items ORDER BY seq`, []);
    return rows.map(itemOf);
  }

  protected async readNamespaces(): Promise<string[][]> {
    const rows = await this.rows("store listNamespaces", "SELECT DISTINCT namespace FROM interlude_store_items", []);
    return rows.map((row) => row.namespace.split(JOIN));
  }

  protected async writeItems(puts: PutOperation[], now: Date): Promise<void> {
    await this.withClient("store put", async (client) => {
      await client.query("BEGIN");
      try {
        for (const { namespace, key, value } of puts) {
          const joined = namespace.join(JOIN);
          if (value === null)
            await client.query("DELETE FROM interlude_store_items WHERE namespace = $1 AND key = $2", [joined, key]);
          else
            await client.query(
              `INSERT INTO interlude_store_items (${COLUMNS}) VALUES ($1, $2, $3, $4, $4)
               ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
              [joined, key, JSON.stringify(value), now],
            );
        }
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
    });
  }

  /** Ends the pool if the store made it. */
  override async stop(): Promise<void> {
    if (this.ownsPool) await this.pool.end();
  }

  close(): Promise<void> {
    return this.stop();
  }
}
