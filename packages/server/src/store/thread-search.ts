/**
 * The thread search of the LangGraph Server API (`POST /threads/search`, `/threads/count`) as
 * one SQL statement: filters, order and page run in the database, so a search reads the rows of
 * its page, not every thread (at 100,000 threads, parsing every row in JS for each request).
 *
 * Metadata and values filters keep their meaning: each top-level key of the filter must hold
 * a value whose JSON text equals the filter value's (`JSON.stringify`; stored JSON is written
 * by `JSON.stringify` too, so that is the value's text in the column). Both databases give a
 * key's value as its exact text: SQLite's `->` on minified JSON, PostgreSQL's `->` on the `json`
 * type (not `jsonb`, which would reorder keys). A missing key gives NULL and never matches.
 * Metadata filters go through an index of (key, value text, thread) (thread-metadata.ts).
 *
 * Orders by the sort column, then the thread id, in the same direction; (created_at, thread_id)
 * is indexed (the default order). The other sort columns change at every run, and an index on
 * them would be written at every run for a listing seldom asked for: they sort in the database.
 */
import { THREAD_COLUMNS } from "./columns.js";
import type { Db, Statement } from "./db.js";
import type { Json, ThreadStatus } from "./records.js";
import type { Page } from "./store.js";
import { indexedMetadata } from "./thread-metadata.js";
import { FIELD_LIMIT } from "./thread-values.js";

export interface ThreadQuery extends Page {
  ids?: string[];
  status?: ThreadStatus;
  metadata?: Json;
  values?: Json;
  sort_by?: "thread_id" | "status" | "created_at" | "updated_at" | "state_updated_at";
  sort_order?: "asc" | "desc";
}

const THREADS = "interlude_server_threads";

/** Whether a search filters on values. */
export function filtersValues(query: ThreadQuery): boolean {
  return Object.keys(query.values ?? {}).length > 0;
}

/**
 * Whether a search's values filter holds a value longer than the fields a row keeps beside its
 * checkpoint (thread-values.ts): SQL then passes those rows, and the store compares them once
 * loaded and cuts the page itself (thread-finder.ts).
 */
export function comparesLoadedValues(query: ThreadQuery): boolean {
  return Object.values(query.values ?? {}).some(longerThanFields);
}

function longerThanFields(value: unknown): boolean {
  return JSON.stringify(value).length > FIELD_LIMIT;
}

/** The WHERE clause (with its leading space, or empty) of a search's filters. */
function filtered(dialect: Db["dialect"], query: ThreadQuery): Statement {
  const where: string[] = [];
  const params: unknown[] = [];
  if (query.status) where.push("status = ?"), params.push(query.status);
  if (query.ids?.length) where.push(`thread_id IN (${query.ids.map(() => "?").join(", ")})`), params.push(...query.ids);
  for (const [key, value] of Object.entries(query.metadata ?? {})) {
    const indexed = indexedMetadata(key, JSON.stringify(value));
    if (indexed) where.push(indexed.sql), params.push(...indexed.params);
    else where.push(holds(dialect, "metadata", key, value, params));
  }
  for (const [key, value] of Object.entries(query.values ?? {})) {
    const held = holds(dialect, '"values"', key, value, params);
    if (!longerThanFields(value)) where.push(held);
    else {
      // Its row may have left the field out for its length: the store compares it once loaded.
      const field = fieldOf(dialect, '"values"', key, params);
      where.push(`(${held} OR (values_checkpoint_id IS NOT NULL AND ${field} IS NULL))`);
    }
  }
  return [where.length ? ` WHERE ${where.join(" AND ")}` : "", params];
}

/** The condition that JSON column `column`'s top-level `key` holds `value`; its parameters are added to `params`. */
function holds(dialect: Db["dialect"], column: string, key: string, value: unknown, params: unknown[]): string {
  const field = fieldOf(dialect, column, key, params);
  params.push(JSON.stringify(value));
  return `${field} = ?`;
}

/** The JSON text of a JSON column's top-level field `key`; the key, as the dialect names it, is added to `params`. */
function fieldOf(dialect: Db["dialect"], column: string, key: string, params: unknown[]): string {
  params.push(dialect === "sqlite" ? keyPath(key) : key);
  return dialect === "sqlite" ? `(${column} -> ?)` : `(${column}::json -> ?::text)::text`;
}

/** SQLite's JSON path of a top-level key: quoted, so that dots, brackets and `$` are the key's own. */
function keyPath(key: string): string {
  return `$."${key.replace(/[\\"]/g, (ch) => `\\${ch}`)}"`;
}

/** The threads a search lists, in order, one page, each read from `columns`. */
export function threadSearch(dialect: Db["dialect"], query: ThreadQuery, columns = THREAD_COLUMNS): Statement {
  const [where, params] = filtered(dialect, query);
  const order = query.sort_order === "asc" ? "ASC" : "DESC";
  const all = dialect === "sqlite" ? "-1" : "ALL";
  const page = `LIMIT ${query.limit === undefined ? all : Math.floor(query.limit)} OFFSET ${Math.floor(query.offset ?? 0)}`;
  return [
    `SELECT ${columns} FROM ${THREADS}${where} ORDER BY ${query.sort_by ?? "created_at"} ${order}, thread_id ${order} ${page}`,
    params,
  ];
}

/** How many threads a search matches (its page aside). */
export function threadCount(dialect: Db["dialect"], query: ThreadQuery): Statement {
  const [where, params] = filtered(dialect, query);
  return [`SELECT COUNT(*) AS n FROM ${THREADS}${where}`, params];
}
