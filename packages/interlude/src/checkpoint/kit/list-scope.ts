import { checkpointIdOf, threadIdOf } from "../base.js";
import type { ListQuery } from "../query.js";
import type { RunnableConfig } from "../types.js";

/** Which checkpoints a `list()` call may yield, in the form a backend queries them. */
export interface ListScope {
  threadId?: string;
  ns?: string;
  /** Only this checkpoint. */
  id?: string;
  /** Only ids strictly lower (older) than this. */
  before?: string;
  /** At most this many (undefined: all; a metadata filter is applied after the backend's query). */
  limit?: number;
  /** true: the query has a metadata filter, so candidates should carry their metadata. */
  filtered: boolean;
}

/** A checkpoint `list()` may yield, newest first; `metadata` (when read with it) lets the kit filter without loading. */
export interface ListCandidate<Kept> {
  threadId: string;
  ns: string;
  id: string;
  metadata?: Kept;
}

export function listScope(config: RunnableConfig, query: ListQuery): ListScope {
  const filtered = query.filter !== undefined;
  const limit = filtered || !Number.isFinite(query.limit) ? undefined : Math.floor(query.limit);
  const ns = config.configurable?.checkpoint_ns;
  return { threadId: threadIdOf(config), ns, id: checkpointIdOf(config), before: query.before, limit, filtered };
}

/**
 * The `list()` query for SQL backends whose checkpoint table has the columns thread_id,
 * checkpoint_ns, checkpoint_id and metadata. Rows come back as `ListCandidate`s.
 * @param placeholder the driver's n-th parameter (`?` for SQLite, `$n` for PostgreSQL)
 * @param extra more columns for the backend's own use (how the metadata is stored, say)
 */
export function listSql(
  table: string,
  scope: ListScope,
  placeholder: (n: number) => string,
  extra: readonly string[] = [],
) {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    params.push(value);
    where.push(`${clause} ${placeholder(params.length)}`);
  };
  if (scope.threadId !== undefined) add("thread_id =", scope.threadId);
  if (scope.ns !== undefined) add("checkpoint_ns =", scope.ns);
  if (scope.id !== undefined) add("checkpoint_id =", scope.id);
  if (scope.before !== undefined) add("checkpoint_id <", scope.before);
  const columns = [`thread_id AS "threadId", checkpoint_ns AS "ns", checkpoint_id AS "id", metadata`, ...extra].join(
    ", ",
  );
  const filter = where.length ? ` WHERE ${where.join(" AND ")}` : "";
  const limit = scope.limit === undefined ? "" : ` LIMIT ${scope.limit}`;
  return { text: `SELECT ${columns} FROM ${table}${filter} ORDER BY checkpoint_id DESC${limit}`, params };
}
