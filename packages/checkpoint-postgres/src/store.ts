/**
 * `PostgresStore`: LangGraph's long-term memory store in PostgreSQL (pg), for
 * `compile({ store })`. Items live in one table keyed by namespace and key; the batch sequence,
 * filters and namespace listings are the core's `StoreKit`, so every store answers alike.
 */
import { type Item, type ItemRow, type PutOperation, StoreKit } from "@interlude/core";
import pg from "pg";
import { Database } from "./database.js";
import { applyMigrations } from "./migrate.js";
import { schemaOf } from "./saver-options.js";

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

/** Creates or upgrades the store's table (see applyMigrations). */
function migrate(client: pg.PoolClient): Promise<void> {
  // Any fixed number, not the saver's: the advisory lock that serialises the store's migrations.
  return applyMigrations(client, {
    migrations: MIGRATIONS,
    versionTable: "interlude_store_schema_version",
    lock: 7_214_530_982,
  });
}

const COLUMNS = "namespace, key, value, created_at, updated_at";

/** LangGraph's `PostgresStoreConfig`, less what Interlude's store does not do (refused when given). */
export interface PostgresStoreConfig {
  connectionOptions: string | pg.PoolConfig;
  /** Create the table on first use (default true); false when migrations run separately (`setup()`). */
  ensureTables?: boolean;
  /** The schema the table lives in, created at setup if missing; default: the connections' search_path. */
  schema?: string;
  ttl?: never;
  index?: never;
  textSearchLanguage?: never;
}

/** What to do instead of an option: LangGraph.js's that this store does not do, and a pool option given at the top. */
const INSTEAD: Record<string, string> = {
  connectionString: "Give it as connectionOptions: { connectionOptions: 'postgres://...' }, or pass the string alone.",
  ttl: "Items do not expire; delete them with store.delete().",
  index: "Semantic search needs an embeddings index, which Interlude's stores do not have.",
  textSearchLanguage: "Full-text search is not implemented; search by namespace prefix and filter.",
};

export class PostgresStore extends StoreKit {
  readonly pool: pg.Pool;
  private readonly database: Database;

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
    this.refuseOptions(config, ["connectionOptions", "ensureTables", "schema"], INSTEAD);
    this.database = new Database(config === undefined ? (pool as pg.Pool) : config.connectionOptions, {
      migrate,
      setupOperation: "store setup",
      autoSetup: config?.ensureTables ?? true,
      schema: schemaOf(config?.schema, "PostgresStore"),
    });
    this.pool = this.database.pool;
  }

  /** Creates the table; run on first use, safe to call from several processes at once. */
  setup(): Promise<void> {
    return this.database.setup();
  }

  override start(): Promise<void> {
    return this.setup();
  }

  private async rows(operation: string, sql: string, params: unknown[]): Promise<ItemRow[]> {
    return this.database.withClient(operation, async (client) => (await client.query<ItemRow>(sql, params)).rows);
  }

  protected async readItem(namespace: string[], key: string): Promise<Item | null> {
    const [row] = await this.rows(
      "store get",
      `SELECT ${COLUMNS} FROM interlude_store_items WHERE namespace = $1 AND key = $2`,
      [namespace.join(JOIN), key],
    );
    return row ? this.itemOf(row) : null;
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
    return rows.map((row) => this.itemOf(row));
  }

  protected async readNamespaces(): Promise<string[][]> {
    const rows = await this.rows("store listNamespaces", "SELECT DISTINCT namespace FROM interlude_store_items", []);
    return rows.map((row) => row.namespace.split(JOIN));
  }

  protected async writeItems(puts: PutOperation[], now: Date): Promise<void> {
    await this.database.transaction("store put", async (client) => {
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
    });
  }

  /** LangGraph's store statistics. Items never expire here (`ttl` is refused), so none is expired. */
  async getStats(): Promise<{
    totalItems: number;
    expiredItems: number;
    namespaceCount: number;
    oldestItem: Date | null;
    newestItem: Date | null;
  }> {
    const [row] = await this.database.withClient("store getStats", async (client) => {
      const result = await client.query<{
        total: string;
        namespaces: string;
        oldest: Date | null;
        newest: Date | null;
      }>(
        `SELECT count(*) AS total, count(DISTINCT namespace) AS namespaces,
                min(created_at) AS oldest, max(created_at) AS newest
           FROM interlude_store_items`,
      );
      return result.rows;
    });
    return {
      totalItems: Number(row!.total),
      expiredItems: 0,
      namespaceCount: Number(row!.namespaces),
      oldestItem: row!.oldest,
      newestItem: row!.newest,
    };
  }

  /** LangGraph's manual TTL sweep: items never expire here (`ttl` is refused), so it removes none. */
  async sweepExpiredItems(): Promise<number> {
    await this.database.ready();
    return 0;
  }

  /** Ends the pool if the store made it (once: stopping again does nothing more). */
  override async stop(): Promise<void> {
    await this.database.close();
  }

  close(): Promise<void> {
    return this.stop();
  }
}
