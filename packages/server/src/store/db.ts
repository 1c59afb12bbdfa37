/**
 * The few SQL operations the server's store needs, over SQLite (better-sqlite3) or
 * PostgreSQL (pg). Statements are written once with `?` placeholders; the Postgres adapter
 * numbers them. Everything the store keeps is text, integers or JSON text, so one dialect fits.
 */
import type Database from "better-sqlite3";
import type pg from "pg";

export type Row = Record<string, unknown>;

export interface Db {
  readonly dialect: "sqlite" | "postgres";
  all<T = Row>(sql: string, params?: unknown[]): Promise<T[]>;
  run(sql: string, params?: unknown[]): Promise<number>;
  /** Runs `fn` in one transaction that holds the write lock of `threadId` (if given). */
  tx<T>(fn: (db: Db) => Promise<T>, threadId?: string): Promise<T>;
  exec(script: string): Promise<void>;
}

export class SqliteDb implements Db {
  readonly dialect = "sqlite" as const;
  private readonly cache = new Map<string, Database.Statement>();
  private depth = 0;
  constructor(readonly raw: Database.Database) {}

  private prepare(sql: string): Database.Statement {
    let statement = this.cache.get(sql);
    if (!statement) this.cache.set(sql, (statement = this.raw.prepare(sql)));
    return statement;
  }
  async all<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.prepare(sql).all(...params) as T[];
  }
  async run(sql: string, params: unknown[] = []): Promise<number> {
    return this.prepare(sql).run(...params).changes;
  }
  async exec(script: string): Promise<void> {
    this.raw.exec(script);
  }
  /**
   * better-sqlite3 answers synchronously, so `fn`'s awaits on this Db resolve as microtasks and
   * no other request's statements interleave; BEGIN IMMEDIATE also excludes other processes.
   */
  async tx<T>(fn: (db: Db) => Promise<T>): Promise<T> {
    if (this.depth > 0) return fn(this);
    this.raw.exec("BEGIN IMMEDIATE");
    this.depth++;
    try {
      const result = await fn(this);
      this.raw.exec("COMMIT");
      return result;
    } catch (error) {
      if (this.raw.inTransaction) this.raw.exec("ROLLBACK");
      throw error;
    } finally {
      this.depth--;
    }
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
    try {
      await client.query("BEGIN");
      // Serialises writers of one thread across processes without locking a row that may not exist yet.
      if (threadId !== undefined) await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`interlude-thread:${threadId}`]);
      const result = await fn(new PgDb(this.pool, client));
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
