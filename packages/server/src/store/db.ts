/**
 * The few SQL operations the server's store needs, over SQLite (better-sqlite3) or
 * PostgreSQL (pg). Statements are written once with `?` placeholders; the Postgres adapter
 * numbers them. Everything the store keeps is text, integers or JSON text, so one dialect fits.
 */

import { createHash } from "node:crypto";
import { type PipelinedStatement, pipelined } from "@interlude/checkpoint-postgres/pipeline";
import {
  keepSession,
  OWN_SESSION,
  ownSessionsWith,
  sessionSetupOf,
} from "@interlude/checkpoint-postgres/session-settings";
import { GroupCommit } from "@interlude/checkpoint-sqlite";
import type Database from "better-sqlite3";
import type pg from "pg";
import { failedToConnect } from "./failures.js";

export type Row = Record<string, unknown>;

/** A statement and its parameters. */
export type Statement = readonly [sql: string, params: unknown[]];

export interface TxOptions {
  /** Resolve only once committed (default true). */
  durable?: boolean;
}

export interface Db {
  readonly dialect: "sqlite" | "postgres";
  all<T = Row>(sql: string, params?: unknown[]): Promise<T[]>;
  run(sql: string, params?: unknown[]): Promise<number>;
  /**
   * A write whose outcome nobody reads. In a PostgreSQL transaction it goes out with the transaction's next statement or its COMMIT
   * (a failure surfaces there, and rolls the transaction back): one round trip fewer.
   */
  write(sql: string, params?: unknown[]): Promise<void>;
  /** Several reads, in one round trip on PostgreSQL. */
  reads(statements: ReadonlyArray<Statement>): Promise<Row[][]>;
  /**
   * A read planned for its parameters at every call (PostgreSQL: not prepared), for a search
   * whose best plan depends on the values searched for: a prepared statement's generic plan,
   * made for any value, may scan every row for a rare one.
   */
  search<T = Row>(sql: string, params: unknown[]): Promise<T[]>;
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
    write: async (sql, params = []) => void this.prepare(sql).run(...params),
    reads: (statements) => this.reads(statements),
    search: (sql, params) => this.all(sql, params),
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
  async write(sql: string, params: unknown[] = []): Promise<void> {
    await this.run(sql, params);
  }
  async reads(statements: ReadonlyArray<Statement>): Promise<Row[][]> {
    return statements.map(([sql, params]) => this.prepare(sql).all(...params) as Row[]);
  }
  /** SQLite's planner does not look at parameter values: the cached statement serves. */
  search<T>(sql: string, params: unknown[]): Promise<T[]> {
    return this.all<T>(sql, params);
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

/**
 * A statement, prepared once per connection under a name derived from its text
 * (node-postgres keeps the names each connection has prepared): the server parses and plans it
 * once rather than on every call. Statements with numbers written in (LIMIT, OFFSET, IN lists)
 * vary without end, so only the first MAX_PREPARED texts are named; later ones go unnamed, as
 * before, and no connection holds more than that many.
 */
const MAX_PREPARED = 256;
const prepared = new Map<string, { name?: string; text: string }>();
function preparedOf(sql: string): { name?: string; text: string } {
  let statement = prepared.get(sql);
  if (!statement) {
    const name =
      prepared.size < MAX_PREPARED
        ? `interlude_${createHash("sha1").update(sql).digest("hex").slice(0, 16)}`
        : undefined;
    statement = { name, text: numbered(sql) };
    if (name) prepared.set(sql, statement);
  }
  return statement;
}

/** A statement as the pipeline sends it (built field by field: a spread of the prepared record costs more). */
function sent([sql, params]: Statement): PipelinedStatement {
  const { name, text } = preparedOf(sql);
  return { name, text, values: params };
}

const ignoreError = () => undefined;
/** What a held write resolves with: nothing to wait for (the write goes out later). */
const HELD: Promise<void> = Promise.resolve();
const BEGIN: Statement = ["BEGIN", []];
const COMMIT: readonly Statement[] = [["COMMIT", []]];
const rowsOf = (result: QueryResult): Row[] => result.rows;
const LOCK = "SELECT pg_advisory_xact_lock(hashtext(?))";
/** `durable: false`: set with the lock, no statement of its own (see tx). */
const RELAXED = "set_config('synchronous_commit', 'off', true)";
const LOCK_RELAXED = `${LOCK}, ${RELAXED}`;
const RELAXED_ALONE = `SELECT ${RELAXED}`;
/**
 * Every connection of the store's pool plans no sequential scan where an index serves. Its
 * statements are prepared, and a prepared statement's generic plan is kept until the next
 * vacuum of its tables. The tables of what comes and goes (pending interrupts, run events, the
 * saver's claims in joined transactions) hold a few live rows among many dead ones: once a
 * vacuum has recorded such a table as a few pages, a scan is the cheaper plan, and it then
 * reads the whole heap regrown since on every call (150-230 buffers per answer, measured,
 * where the index reads 5). A statement with no index to use still scans, at a cost the
 * planner counts as 10^10: far above `jit_above_cost`, so JIT is off as well (it compiled such a
 * one-page count for 40-200 ms at every call; the store's statements are short). And no
 * idle-session timeout ends it, and its transactions are read committed whatever the
 * database's default (OWN_SESSION).
 */
const PLAN_BY_INDEX = `SET enable_seqscan = off; SET jit = off; ${OWN_SESSION}`;
/**
 * A search is planned at every call (see Db.search), for the table as it is then: the scan
 * stays a choice, for this statement alone. Local to the exchange's implicit transaction, or,
 * in an explicit one, undone by the statement after it.
 */
const SCANS_ALLOWED: PipelinedStatement = { text: "SELECT set_config('enable_seqscan', 'on', true)", values: [] };
const SCANS_REFUSED: PipelinedStatement = { text: "SELECT set_config('enable_seqscan', 'off', true)", values: [] };

interface QueryResult {
  rows: any[];
  rowCount: number | null;
}

/**
 * Statements go out as prepared statements with their parameters. In a transaction, the
 * statements whose results are not read yet (BEGIN, the thread's lock, `write`s) wait in `held`
 * and go out with the next statement or the COMMIT, in one exchange (@interlude/checkpoint-postgres/pipeline): a
 * transaction of a lock, two reads and three writes is three round trips instead of eight, and
 * PostgreSQL parses and plans none of them after their first use on a connection.
 */
export class PgDb implements Db {
  readonly dialect = "postgres" as const;
  private readonly held: Statement[] = [];
  /** Reads that go out with the transaction's COMMIT (readAtCommit), and where their rows go. */
  private readonly atCommit: Array<{ statement: Statement; settle: (rows: Row[] | Error) => void }> = [];
  /** Something went out on this connection (its transaction has begun). */
  private sent = false;
  constructor(
    readonly pool: pg.Pool,
    /** The transaction's connection; none: each call on a pooled connection of its own. */
    private readonly client?: pg.PoolClient,
  ) {
    // The pool is the store's: whatever else uses it (the bus's NOTIFY, onPooledClient) sets
    // its connections up as the store's checkout does, or one it opened would keep the
    // database's defaults (an idle-session timeout among them) once back in the pool.
    if (!client) ownSessionsWith(pool, PLAN_BY_INDEX);
  }

  /**
   * A pooled connection of this call's own; every statement of the store goes out on one (no
   * pool.query), so each connection is set up (PLAN_BY_INDEX) before its first. The server
   * cutting it while checked out would otherwise be an unhandled 'error' event (pg-pool listens
   * on idle connections only): the statement under way, or the next, fails with it instead.
   * Through pg-pool's callback: its promise form adds two promises of its own per checkout.
   */
  private checkout(): Promise<pg.PoolClient> {
    return new Promise((resolve, reject) =>
      this.pool.connect((error, client) => {
        if (error || !client) return reject(error && failedToConnect(error));
        // Only a connection's first checkout sets it up (session-settings.ts keepSession).
        const ready = keepSession(client, sessionSetupOf(this.pool));
        if (!ready) return resolve(client);
        // Once per connection: the listener stays when it goes back to the pool (whose own
        // listener still drops it if it fails there), so no checkout adds and removes one.
        client.on("error", ignoreError);
        ready.then(
          () => resolve(client),
          (failure: unknown) => {
            client.release(failure as Error);
            reject(failure);
          },
        );
      }),
    );
  }

  /**
   * Sends what is held and then `statements`, in one exchange; resolves with the results of
   * `statements`. In a transaction it is the exchange's own promise (no async layer over it:
   * each costs promises, and with AsyncLocalStorage on, their hooks, on every statement).
   */
  private pipeline(statements: readonly Statement[]): Promise<QueryResult[]> {
    return this.send(statements.map(sent));
  }

  /** As pipeline, for statements as sent; results after the first `unread` of them. */
  private send(statements: readonly PipelinedStatement[], unread = 0): Promise<QueryResult[]> {
    // Outside a transaction nothing is held: the statements go on a pooled connection of their own.
    if (!this.client) return this.alone((own) => pipelined(own, statements, unread));
    const held = this.held.length;
    const batch = held ? [...this.held.splice(0).map(sent), ...statements] : statements;
    this.sent = true;
    return pipelined(this.client, batch, held + unread);
  }

  /** `use` of a pooled connection of its own. */
  private async alone<T>(use: (own: pg.PoolClient) => Promise<T>): Promise<T> {
    const own = await this.checkout();
    try {
      const result = await use(own);
      own.release();
      return result;
    } catch (error) {
      // As pool.query does: the pool drops a connection whose use failed (it may be cut).
      own.release(error as Error);
      throw error;
    }
  }

  /** The statement's result, sent with whatever is held before it. */
  private query(sql: string, params: unknown[]): Promise<QueryResult> {
    return this.pipeline([[sql, params]]).then((results) => results[0]!);
  }

  all<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.query(sql, params).then(rowsOf) as Promise<T[]>;
  }
  run(sql: string, params: unknown[] = []): Promise<number> {
    return this.query(sql, params).then((result) => result.rowCount ?? 0);
  }
  write(sql: string, params: unknown[] = []): Promise<void> {
    if (!this.client) return this.query(sql, params).then(() => undefined);
    this.held.push([sql, params]);
    return HELD;
  }
  reads(statements: ReadonlyArray<Statement>): Promise<Row[][]> {
    return this.pipeline(statements).then((results) => results.map(rowsOf));
  }
  /** Unprepared (planned for these values, scans allowed), after whatever is held. */
  async search<T>(sql: string, params: unknown[]): Promise<T[]> {
    const results = await this.send([SCANS_ALLOWED, { text: numbered(sql), values: params }, SCANS_REFUSED], 1);
    return results[0]!.rows as T[];
  }
  async exec(script: string): Promise<void> {
    if (!this.client) return void (await this.alone((own) => own.query(script)));
    if (this.held.length) await this.pipeline([]);
    this.sent = true;
    // A script of several statements goes as a simple query (no parameters).
    await this.client.query(script);
  }
  /**
   * A statement sent in the exchange of the transaction's COMMIT, just before it: resolves with
   * its rows once the transaction has committed, with undefined if it did not (nothing of it
   * was kept). For a statement whose effect belongs to the transaction's outcome and whose rows
   * are read only after it (the checkpoint saver's claim, runs/joined-saver.ts). In a
   * transaction only; the body must not wait for it (the commit comes after the body).
   */
  readAtCommit(statement: Statement): Promise<Row[] | undefined> {
    if (!this.client) throw new Error("PgDb.readAtCommit is for a transaction's statements: call it inside tx()");
    return new Promise((resolve) => {
      this.atCommit.push({ statement, settle: (rows) => resolve(rows instanceof Error ? undefined : rows) });
    });
  }

  /** Commits, with the reads that go along (readAtCommit). */
  private commit(): Promise<void> {
    if (!this.atCommit.length) return this.pipeline(COMMIT).then(() => undefined);
    const reads = this.atCommit.splice(0);
    return this.pipeline([...reads.map((r) => r.statement), COMMIT[0]!]).then(
      (results) => {
        for (const [i, read] of reads.entries()) read.settle(results[i]!.rows);
      },
      (error: unknown) => {
        for (const read of reads) read.settle(error as Error);
        throw error;
      },
    );
  }

  async tx<T>(fn: (db: Db) => Promise<T>, threadId?: string, options?: TxOptions): Promise<T> {
    if (this.client) return fn(this);
    const client = await this.checkout();
    const db = new PgDb(this.pool, client);
    try {
      db.held.push(BEGIN);
      // Serialises writers of one thread across processes without locking a row that may not
      // exist yet. Taken with the body's first statement (the body reads nothing before it).
      // `durable: false`: the commit does not wait for its WAL to reach disk. The next durable
      // commit of any transaction flushes it too (WAL is flushed in order), so whatever another
      // process acts on after that is kept; a crash of PostgreSQL before it loses this transaction
      // alone (what Db.tx allows). Set with the lock: no statement of its own.
      const relaxed = options?.durable === false;
      if (threadId !== undefined) db.held.push([relaxed ? LOCK_RELAXED : LOCK, [`interlude-thread:${threadId}`]]);
      else if (relaxed) db.held.push([RELAXED_ALONE, []]);
      const opening = db.held.length;
      const result = await fn(db);
      // A body that neither sent nor wrote anything has no transaction to commit.
      if (db.sent || db.held.length > opening || db.atCommit.length) await db.commit();
      return result;
    } catch (error) {
      for (const read of db.atCommit.splice(0)) read.settle(error as Error);
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
