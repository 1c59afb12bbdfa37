/**
 * The few SQL operations the server's store needs, over SQLite (better-sqlite3) or
 * PostgreSQL (pg). Statements are written once with `?` placeholders; the Postgres adapter
 * numbers them. Everything the store keeps is text, integers or JSON text, so one dialect fits.
 */

import { GroupCommit } from "@interlude/checkpoint-sqlite";
import type Database from "better-sqlite3";
import type pg from "pg";

export type Row = Record<string, unknown>;

export interface TxOptions {
  /** Resolve only once committed (default true). */
  durable?: boolean;
}

export interface Db {
  readonly dialect: "sqlite" | "postgres";
  all<T = Row>(sql: string, params?: unknown[]): Promise<T[]>;
  run(sql: string, params?: unknown[]): Promise<number>;
  /**
   * Runs `fn` in one transaction that holds the write lock of `threadId` (if given). With
   * `durable: false` a store that batches commits may resolve before the commit (see
   * GroupCommit.write): for writes nobody outside this process acts on until a later durable one.
   */
  tx<T>(fn: (db: Db) => Promise<T>, threadId?: string, options?: TxOptions): Promise<T>;
  exec(script: string): Promise<void>;
}

export class SqliteDb implements Db {
  readonly dialect = "sqlite" as const;
  private readonly cache = new Map<string, Database.Statement>();
  /** What a transaction's body gets: the same connection, whose tx() nests instead of queueing. */
  private readonly inTx: Db = {
    dialect: "sqlite",
    all: (sql, params) => this.all(sql, params),
    run: async (sql, params = []) => this.prepare(sql).run(...params).changes,
    exec: (script) => this.exec(script),
    tx: (fn) => fn(this.inTx),
  };
  /** Shared with the checkpoint saver on the same connection, so both commit in the same batches. */
  private readonly group: GroupCommit;
  constructor(readonly raw: Database.Database) {
    this.group = GroupCommit.of(raw);
  }

  private prepare(sql: string): Database.Statement {
    let statement = this.cache.get(sql);
    if (!statement) this.cache.set(sql, (statement = this.raw.prepare(sql)));
    return statement;
  }
  async all<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.prepare(sql).all(...params) as T[];
  }
  /** A write outside tx() is a logical transaction of its own, so it never lands inside another's savepoint. */
  async run(sql: string, params: unknown[] = []): Promise<number> {
    return this.group.write(() => this.prepare(sql).run(...params).changes);
  }
  async exec(script: string): Promise<void> {
    this.raw.exec(script);
  }
  /**
   * One logical transaction at a time (group-commit.ts): a body's awaits let other requests
   * run, and on one connection their transactions would otherwise nest into this one
   * (check-then-insert races, and a rollback taking their writes along). Bodies use the Db they
   * are given (nested tx() calls on it join the transaction). A body must not write through
   * this object or through the checkpoint saver: those writes wait for the transaction the body
   * is in, which waits for the body. Resolves once the batch holding its writes has committed;
   * the batch's BEGIN IMMEDIATE also excludes other processes.
   */
  async tx<T>(fn: (db: Db) => Promise<T>, _threadId?: string, options?: TxOptions): Promise<T> {
    return this.group.write(() => fn(this.inTx), options);
  }

  /** Commits what is pending (before the connection closes). */
  flush(): Promise<void> {
    return this.group.flush();
  }
}

function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

interface Queryable {
  query(sql: string, params?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
}

export class PgDb implements Db {
  readonly dialect = "postgres" as const;
  constructor(
    readonly pool: pg.Pool,
    private readonly client: Queryable = pool,
  ) {}

  async all<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.client.query(numbered(sql), params)).rows as T[];
  }
  async run(sql: string, params: unknown[] = []): Promise<number> {
    return (await this.client.query(numbered(sql), params)).rowCount ?? 0;
  }
  async exec(script: string): Promise<void> {
    await this.client.query(script);
  }
  async tx<T>(fn: (db: Db) => Promise<T>, threadId?: string): Promise<T> {
    if (this.client !== this.pool) return fn(this);
    const client = await this.pool.connect();
    // The server cutting the connection while the body awaits something else would otherwise be
    // an unhandled 'error' event; the next query fails with it instead.
    const ignore = () => undefined;
    client.on("error", ignore);
    try {
      await client.query("BEGIN");
      // Serialises writers of one thread across processes without locking a row that may not exist yet.
      if (threadId !== undefined)
        await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`interlude-thread:${threadId}`]);
      const result = await fn(new PgDb(this.pool, client));
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.off("error", ignore);
      client.release();
    }
  }
}
