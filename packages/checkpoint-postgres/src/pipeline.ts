/**
 * Several statements in one extended-protocol exchange, ended by a single Sync: PostgreSQL
 * executes them in order and answers once (one round trip, one flush of its socket), each a
 * prepared statement with its parameters, parsed once per connection when named. If one fails,
 * PostgreSQL skips the rest up to the Sync, and that failure is the exchange's error.
 *
 * node-postgres sends one statement per Sync (in its pipeline mode too, where PostgreSQL then
 * flushes its socket after each); it runs any object with a `submit(connection)` and hands it
 * the server's messages, which is what this is.
 */
import { createRequire } from "node:module";
import pg from "pg";
import { serialize } from "pg-protocol";

/** A statement as sent: named statements are parsed once per connection. */
export interface PipelinedStatement {
  name?: string;
  text: string;
  values: readonly unknown[];
}

/** The parts of node-postgres's connection a pipeline writes to (lib/connection.js). */
interface Connection {
  parsedStatements: Record<string, string>;
  stream: { writable: boolean; write(chunk: Buffer): boolean };
  sendCopyFail(message: string): void;
}

interface Field {
  name: string;
  dataTypeID: number;
  format: "text" | "binary";
}

/** node-postgres's own mapping of parameters to the wire (null, Buffer, Date, arrays, JSON ...). */
const { prepareValue } = createRequire(import.meta.url)("pg/lib/utils.js") as {
  prepareValue: (value: unknown) => unknown;
};

const DESCRIBE_PORTAL = serialize.describe({ type: "P", name: "" });
const EXECUTE = serialize.execute();
const SYNC = serialize.sync();

/**
 * Names whose Parse went out in an exchange that failed before its answer: PostgreSQL may or
 * may not have kept them, so the next Parse of such a name is preceded by a Close (which is no
 * error for a name it does not have).
 */
const uncertain = new WeakMap<Connection, Set<string>>();

export interface PipelineResult {
  rows: Record<string, unknown>[];
  rowCount: number;
}

/**
 * Sends `statements` in one exchange on `client`; resolves with their results, in order, but for
 * the first `unread`.
 * @param unread how many of the first statements' results nobody reads (BEGIN, a lock, held
 *   writes): they are not described, so PostgreSQL sends no row description for them.
 */
export function pipelined(
  client: pg.ClientBase,
  statements: readonly PipelinedStatement[],
  unread = 0,
): Promise<PipelineResult[]> {
  return new Promise((resolve, reject) => {
    client.query(new Pipeline(statements, unread, (error, results) => (error ? reject(error) : resolve(results))));
  });
}

class Pipeline implements pg.Submittable {
  private readonly results: PipelineResult[] = [];
  /** The statement whose answer comes next. */
  private current = 0;
  /** The current statement's columns, as described; their names and parsers are looked up at its first row. */
  private fields: Field[] = [];
  private names?: string[];
  private parsers: Array<(text: string) => unknown> = [];
  /** Named statements this exchange parses, by their index. */
  private readonly parsedHere = new Map<number, string>();
  private connection?: Connection;

  constructor(
    private readonly statements: readonly PipelinedStatement[],
    private readonly unread: number,
    /**
     * Called once the exchange is answered or fails. Public under node-postgres's name for it: a
     * client with `query_timeout` wraps it with the timer that fails the exchange when it runs
     * too long, and which it clears when called.
     */
    public callback: (error: Error | undefined, results: PipelineResult[]) => void,
  ) {}

  /**
   * The exchange's messages are written as one buffer (node-postgres writes each message on its
   * own: a stream write and its bookkeeping per Parse, Bind, Describe and Execute). Parameters
   * that cannot be sent (a value whose JSON fails) fail the exchange before anything is written.
   */
  submit(connection: pg.Connection): Error | undefined {
    const c = connection as unknown as Connection;
    this.connection = c;
    const unsure = uncertain.get(c);
    const messages: Buffer[] = [];
    // Named statements parsed earlier in this exchange (the connection learns of them once it is written).
    const parsing = new Set<string>();
    try {
      for (let index = 0; index < this.statements.length; index++) {
        const s = this.statements[index]!;
        if (!s.name || (c.parsedStatements[s.name] !== s.text && !parsing.has(s.name))) {
          if (s.name && unsure?.has(s.name)) messages.push(serialize.close({ type: "S", name: s.name }));
          messages.push(serialize.parse({ name: s.name, text: s.text, types: [] }));
          if (s.name) {
            parsing.add(s.name);
            this.parsedHere.set(index, s.name);
          }
        }
        messages.push(serialize.bind({ statement: s.name, values: s.values as unknown[], valueMapper: prepareValue }));
        if (index >= this.unread) messages.push(DESCRIBE_PORTAL);
        messages.push(EXECUTE);
      }
    } catch (error) {
      this.parsedHere.clear();
      return error as Error;
    }
    messages.push(SYNC);
    for (const [index, name] of this.parsedHere) {
      unsure?.delete(name);
      c.parsedStatements[name] = this.statements[index]!.text;
    }
    if (c.stream.writable) c.stream.write(Buffer.concat(messages));
    return undefined;
  }

  handleRowDescription(message: { fields: Field[] }): void {
    // Many reads find no row (no active run, no earlier answer): nothing to look up for them.
    this.fields = message.fields;
  }

  handleDataRow(message: { fields: Array<string | null> }): void {
    // Undescribed (unread): no names to build a row with.
    if (this.current < this.unread) return;
    if (!this.names) {
      this.names = this.fields.map((f) => f.name);
      this.parsers = this.fields.map((f) => pg.types.getTypeParser(f.dataTypeID, f.format));
    }
    const { names, parsers } = this;
    const values = message.fields;
    const row: Record<string, unknown> = {};
    for (let i = 0; i < values.length; i++) {
      const raw = values[i]!;
      row[names[i]!] = raw === null ? null : parsers[i]!(raw);
    }
    this.result().rows.push(row);
  }

  handleCommandComplete(message: { text: string }): void {
    // "INSERT 0 1", "UPDATE 3", "SELECT 2"; "BEGIN", "COMMIT" have no count.
    const count = Number(message.text.slice(message.text.lastIndexOf(" ") + 1));
    this.result().rowCount = Number.isNaN(count) ? 0 : count;
    this.next();
  }

  handleEmptyQuery(): void {
    this.result();
    this.next();
  }

  handleError(error: Error): void {
    // Statements from the failing one on may not have been parsed: PostgreSQL skipped them.
    if (this.connection) {
      let unsure = uncertain.get(this.connection);
      for (const [index, name] of this.parsedHere) {
        if (index < this.current) continue;
        delete this.connection.parsedStatements[name];
        if (!unsure) uncertain.set(this.connection, (unsure = new Set()));
        unsure.add(name);
      }
    }
    this.callback(error, []);
  }

  handleReadyForQuery(): void {
    this.callback(undefined, this.unread ? this.results.slice(this.unread) : this.results);
  }

  handlePortalSuspended(): void {}

  handleCopyInResponse(connection: Connection): void {
    connection.sendCopyFail("COPY is not supported in a pipeline");
  }

  handleCopyData(): void {}

  private result(): PipelineResult {
    let result = this.results[this.current];
    if (!result) this.results[this.current] = result = { rows: [], rowCount: 0 };
    return result;
  }

  private next(): void {
    this.current++;
    this.fields = [];
    this.names = undefined;
    this.parsers = [];
  }
}
