/**
 * Fewer statements for PostgreSQL to execute: each statement of an exchange costs it a portal,
 * a snapshot, an executor start-up and end (opening its relations and indexes), statistics and
 * a result's messages, which together were most of its CPU per answer. Statements that do not
 * depend on one another's effects go out as one:
 *
 * - reads (and at most a leading write with RETURNING) as one SELECT of one JSON array per
 *   statement (`combinedReads`);
 * - held writes on different rows as one statement of data-modifying CTEs (`mergedWrites`).
 *
 * Every part of one statement sees the database as it was before the statement: a read
 * combined after a write does not see that write, and two writes of one statement must not
 * touch the same row (PostgreSQL applies only one of two updates of a row, in no set order).
 * Both functions keep statements' `?` placeholders in order; PgDb numbers them.
 */
import type { Row, Statement } from "./db.js";

/** A write held for the next exchange, with the row it changes when the caller knows it. */
export interface HeldWrite {
  statement: Statement;
  /** The changed row's table-unique key (none: it may change any row of its tables). */
  row?: string;
}

const DML = /^\s*(INSERT INTO|UPDATE|DELETE FROM)\s+(\w+)/i;
const SELECT = /^\s*SELECT\s/i;

/**
 * One statement returning `statements`' rows: each a SELECT, except the first, which may be an
 * INSERT, UPDATE or DELETE with RETURNING (the reads do not see its change). Undefined when
 * they cannot be combined (a statement of its own WITH, or a single statement).
 */
export function combinedReads(statements: readonly Statement[]): Statement | undefined {
  if (statements.length < 2) return undefined;
  const combinable = statements.every(([sql], i) => SELECT.test(sql) || (i === 0 && DML.test(sql)));
  if (!combinable) return undefined;
  const parts = statements.map(([sql], i) => `r${i} AS (${sql})`);
  const columns = statements.map((_, i) => `(SELECT COALESCE(json_agg(r${i}), '[]') FROM r${i}) AS r${i}`);
  // A sorted subquery's rows reach json_agg in their order (the only input, no join).
  return [`WITH ${parts.join(", ")} SELECT ${columns.join(", ")}`, statements.flatMap(([, params]) => params)];
}

/**
 * The rows of each statement combined by `combinedReads`, from its one row: each row's columns
 * as JSON gives them (text as strings, integers as numbers, null), which the codecs read alike.
 */
export function splitReads(row: Row, count: number): Row[][] {
  return Array.from({ length: count }, (_, i) => row[`r${i}`] as Row[]);
}

/** The tables a write changes (none for a SELECT such as pg_notify). */
function tableOf(sql: string): string | undefined {
  return DML.exec(sql)?.[2]?.toLowerCase();
}

/**
 * Consecutive held writes as few statements as can be: INSERTs, UPDATEs and DELETEs on
 * different tables, or on different known rows of one table, go as the CTEs of one statement,
 * with at most one SELECT (a notification) as its main query. Order is kept between groups.
 */
export function mergedWrites(writes: readonly HeldWrite[]): Statement[] {
  const out: Statement[] = [];
  let group: HeldWrite[] = [];
  const flush = () => {
    if (group.length) out.push(merged(group));
    group = [];
  };
  for (const write of writes) {
    if (!fits(group, write)) flush();
    group.push(write);
  }
  flush();
  return out;
}

function fits(group: readonly HeldWrite[], write: HeldWrite): boolean {
  const [sql] = write.statement;
  if (SELECT.test(sql)) return !group.some((w) => SELECT.test(w.statement[0]));
  const table = tableOf(sql);
  if (!table) return false;
  return group.every((w) => {
    const other = tableOf(w.statement[0]);
    if (other !== table) return other !== undefined || SELECT.test(w.statement[0]);
    return write.row !== undefined && w.row !== undefined && write.row !== w.row;
  });
}

function merged(group: readonly HeldWrite[]): Statement {
  if (group.length === 1) return group[0]!.statement;
  const main = group.find((w) => SELECT.test(w.statement[0])) ?? group.at(-1)!;
  const ctes = group.filter((w) => w !== main);
  const sql = `WITH ${ctes.map((w, i) => `w${i} AS (${w.statement[0]})`).join(", ")} ${main.statement[0]}`;
  return [sql, [...ctes.flatMap((w) => w.statement[1]), ...main.statement[1]]];
}
