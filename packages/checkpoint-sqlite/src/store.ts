/**
 * `SqliteStore`: LangGraph's long-term memory store in a SQLite file (better-sqlite3), for
 * `compile({ store })`. Items live in one table keyed by namespace and key; the batch sequence,
 * filters and namespace listings are the core's `StoreKit`, so every store answers alike.
 */
import { type Item, type ItemRow, type PutOperation, StorageError, StoreKit } from "@interlude/core";
import Database from "better-sqlite3";
import { GroupCommit, type WriteOptions } from "./group-commit.js";
import { recordedVersion } from "./schema.js";

const COMMIT_NOW: WriteOptions = { unbatched: true };

/** Labels cannot contain ".", so the joined namespace splits back exactly. */
const JOIN = ".";

const MIGRATIONS: readonly string[] = [
  `CREATE TABLE store_items (
     namespace TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
     created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
     PRIMARY KEY (namespace, key));`,
];

export const STORE_SCHEMA_VERSION = MIGRATIONS.length;

function migrate(db: Database.Database): void {
  if (db.readonly || recordedVersion(db, "store_schema_version") === MIGRATIONS.length) return;
  db.transaction(() => {
    db.exec("CREATE TABLE IF NOT EXISTS store_schema_version (version INTEGER NOT NULL)");
    const row = db.prepare("SELECT MAX(version) AS version FROM store_schema_version").get() as {
      version: number | null;
    };
    for (let v = row.version ?? 0; v < MIGRATIONS.length; v++) {
      db.exec(MIGRATIONS[v]!);
      db.prepare("INSERT INTO store_schema_version (version) VALUES (?)").run(v + 1);
    }
  }).immediate();
}

export interface SqliteStoreOptions {
  busyTimeoutMs?: number;
}

export class SqliteStore extends StoreKit {
  readonly db: Database.Database;
  private readonly ownsDb: boolean;
  private readonly sql: {
    get: Database.Statement;
    all: Database.Statement;
    under: Database.Statement;
    namespaces: Database.Statement;
    upsert: Database.Statement;
    remove: Database.Statement;
  };

  /** A file path (the store opens and closes it) or an open better-sqlite3 handle (shared with a saver, say). */
  constructor(db: Database.Database | string, options: SqliteStoreOptions = {}) {
    super();
    this.refuseOptions(options, ["busyTimeoutMs"]);
    this.ownsDb = typeof db === "string";
    try {
      this.db = typeof db === "string" ? new Database(db) : db;
      if (this.ownsDb) {
        this.db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
        if (this.db.name !== ":memory:" && !this.db.readonly) this.db.pragma("journal_mode = WAL");
      }
      migrate(this.db);
      const columns = "namespace, key, value, created_at, updated_at";
      this.sql = {
        get: this.db.prepare(`SELECT ${columns} FROM store_items WHERE namespace = ? AND key = ?`),
        all: this.db.prepare(`SELECT ${columns} FROM store_items ORDER BY rowid`),
        // Whole labels only: "a.b" and what starts with "a.b." (not "a.bc").
        under: this.db.prepare(
          `SELECT ${columns} FROM store_items WHERE namespace = ? OR substr(namespace, 1, ?) = ? ORDER BY rowid`,
        ),
        namespaces: this.db.prepare("SELECT DISTINCT namespace FROM store_items"),
        upsert: this.db.prepare(
          `INSERT INTO store_items (${columns}) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        ),
        remove: this.db.prepare("DELETE FROM store_items WHERE namespace = ? AND key = ?"),
      };
    } catch (error) {
      throw new StorageError("opening the store", error);
    }
  }

  private guard<T>(operation: string, body: () => T): T {
    try {
      return body();
    } catch (error) {
      throw new StorageError(operation, error);
    }
  }

  protected async readItem(namespace: string[], key: string): Promise<Item | null> {
    const row = this.guard("store get", () => this.sql.get.get(namespace.join(JOIN), key) as ItemRow | undefined);
    return row ? this.itemOf(row) : null;
  }

  protected async readItemsUnder(prefix: string[]): Promise<Item[]> {
    const joined = prefix.join(JOIN);
    const rows = this.guard(
      "store search",
      () =>
        (joined ? this.sql.under.all(joined, joined.length + 1, `${joined}${JOIN}`) : this.sql.all.all()) as ItemRow[],
    );
    return rows.map((row) => this.itemOf(row));
  }

  protected async readNamespaces(): Promise<string[][]> {
    const rows = this.guard("store listNamespaces", () => this.sql.namespaces.all() as Array<{ namespace: string }>);
    return rows.map((row) => row.namespace.split(JOIN));
  }

  /**
   * Through the connection's GroupCommit, committed before it resolves: a plain transaction
   * would block in SQLite's busy handler while another connection of this process holds the
   * write lock in a batch (a saver's claim waits in one for the run's next save), and that batch
   * commits only once the event loop turns. A batch open on this very connection commits with it.
   */
  protected async writeItems(puts: PutOperation[], now: Date): Promise<void> {
    const at = now.getTime();
    try {
      await GroupCommit.of(this.db).run(() => {
        for (const { namespace, key, value } of puts) {
          const joined = namespace.join(JOIN);
          if (value === null) this.sql.remove.run(joined, key);
          else this.sql.upsert.run(joined, key, JSON.stringify(value), at, at);
        }
      }, COMMIT_NOW);
    } catch (error) {
      throw new StorageError("store put", error);
    }
  }

  /** Closes the file if the store opened it. */
  override stop(): void {
    if (this.ownsDb && this.db.open) this.db.close();
  }

  close(): void {
    this.stop();
  }
}
