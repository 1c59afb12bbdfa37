/**
 * Group commit: the saves and claims of different threads that are ready in the same event-loop
 * turn go to PostgreSQL in one exchange and commit in one transaction. Each statement alone is a
 * socket write, a wake-up of a backend, a commit and (when durable) a wait for the WAL flush, all
 * of which cost more than the statement itself. With 32 concurrent approval round trips, groups
 * held 10 to 32 statements, and PostgreSQL's CPU per round trip fell from ~2.0 to ~0.5 ms and
 * this process's from ~1.2 to ~0.35 ms (packages/server/PERFORMANCE.md). A statement ready alone
 * is sent alone, one turn later.
 *
 * Each statement still resolves only once its group has committed, with its own result. A group
 * holds at most one statement per thread (a second goes in another group, sent in the same turn,
 * as two statements sent alone would be), so what one thread writes keeps a transaction id
 * (xmin, the saver's stamps) of its own. Groups list their threads in one order, so two
 * groups, of this process or another, that wait for each other's rows cannot deadlock. If
 * PostgreSQL refuses one statement (an ERROR), the group is rolled back and each statement is sent
 * again alone, so that the refusal reaches only its own caller; if the connection fails instead
 * (or the backend ends: FATAL), the group may or may not have committed, and every statement
 * fails with that error, as a statement sent alone would.
 *
 * Claims commit without waiting for the WAL flush (sql.ts, RELAXED) and the rest with it: the two
 * kinds are grouped apart, so that no durable write commits the relaxed way. A durable statement
 * of a thread whose caller commits durably after it (`relaxes`: a run whose last writes go in the
 * server's transaction that records its end) commits relaxed too: that later commit flushes the
 * log up to it (the log is flushed in order), and no one is told of the run's progress as kept
 * before then. A relaxed group's exchange begins with RELAX, for statements that do not relax
 * their own commit.
 */
import pg from "pg";
import { type PipelinedStatement, type PipelineResult, pipelined } from "./pipeline.js";
import { onPooledClient, runsPipelines, statementOn } from "./pool.js";

/** How a grouped statement commits: with the WAL flushed, or without waiting for it. */
export type Commit = "durable" | "relaxed";

const NO_PIPELINE = Promise.resolve(undefined);

/** Sent first in a relaxed exchange: its implicit transaction commits without waiting for the flush. */
const RELAX: PipelinedStatement = {
  name: "interlude_relax",
  text: "SELECT set_config('synchronous_commit', 'off', true)",
  values: [],
};

/** Statements per group at most: a group is one transaction, whose row locks are held until it commits. */
const MOST = 64;

interface Waiting {
  readonly statement: PipelinedStatement;
  readonly thread: string;
  /** Durable by its statement, relaxed for its thread (`relaxes`): its exchange must relax the commit. */
  readonly promoted: boolean;
  resolve(result: PipelineResult): void;
  reject(error: unknown): void;
}

export class GroupCommit {
  /** The groups that leave at the end of this turn, by kind, in the order they were opened. */
  private readonly open: Record<Commit, Waiting[][]> = { durable: [], relaxed: [] };
  private scheduled = false;

  /**
   * @param grouped which statements may go with other threads', by name, and how each commits;
   *   the first parameter of each is its thread.
   * @param relaxes whether a thread's durable statements may commit relaxed, as a durable commit
   *   of its caller follows them.
   */
  constructor(
    private readonly pool: pg.Pool,
    private readonly grouped: ReadonlyMap<string, Commit>,
    private readonly relaxes: (thread: string) => boolean = () => false,
  ) {}

  /** Sends `statement`: in this turn's group if it is one that groups, else alone and at once. */
  send(statement: PipelinedStatement): Promise<PipelineResult> {
    const grouped = statement.name === undefined ? undefined : this.grouped.get(statement.name);
    if (grouped === undefined) return statementOn(this.pool, statement);
    const thread = String(statement.values[0]);
    const promoted = grouped === "durable" && this.relaxes(thread);
    return new Promise((resolve, reject) => {
      this.join(promoted ? "relaxed" : grouped, { statement, thread, promoted, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.leave);
      }
    });
  }

  private join(kind: Commit, waiting: Waiting): void {
    const groups = this.open[kind];
    const group = groups.find((g) => g.length < MOST && !g.some((other) => other.thread === waiting.thread));
    if (group) group.push(waiting);
    else groups.push([waiting]);
  }

  private readonly leave = (): void => {
    this.scheduled = false;
    for (const kind of ["durable", "relaxed"] as const) {
      const groups = this.open[kind];
      this.open[kind] = [];
      for (const group of groups) this.commit(group);
    }
  };

  private commit(group: Waiting[]): void {
    const relax = group.some((waiting) => waiting.promoted);
    if (group.length === 1 && !relax) {
      this.alone(group[0]!);
      return;
    }
    group.sort((a, b) => (a.thread < b.thread ? -1 : a.thread > b.thread ? 1 : 0));
    const statements = group.map((waiting) => waiting.statement);
    // pg-native's client runs no pipeline (undefined): each goes alone, durable.
    onPooledClient(this.pool, (client) =>
      runsPipelines(client)
        ? pipelined(client, relax ? [RELAX, ...statements] : statements, relax ? 1 : 0)
        : NO_PIPELINE,
    ).then(
      (results) => {
        if (!results) for (const waiting of group) this.alone(waiting);
        else for (const [index, waiting] of group.entries()) waiting.resolve(results[index]!);
      },
      (failure: unknown) => {
        if (group.length > 1 && rolledBack(failure)) for (const waiting of group) this.commit([waiting]);
        else for (const waiting of group) waiting.reject(failure);
      },
    );
  }

  private alone(waiting: Waiting): void {
    statementOn(this.pool, waiting.statement).then(waiting.resolve, waiting.reject);
  }
}

/** An error PostgreSQL reports for a statement of a transaction it then rolls back; FATAL ends the session, maybe after a commit. */
function rolledBack(failure: unknown): boolean {
  return failure instanceof pg.DatabaseError && failure.severity === "ERROR";
}
