/** Row <-> record conversion: JSON columns are text in both databases. */

import type { Row } from "./db.js";
import type { AnswerRecord, AssistantRecord, Json, PendingInterrupt, RunRecord, ThreadRecord } from "./records.js";

export const json = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));
const parse = (text: unknown): any => (text === null || text === undefined ? null : JSON.parse(String(text)));

// How a column reads back.
const text = (value: unknown): string => String(value);
const textOrNull = (value: unknown): string | null => (value as string | null) ?? null;
const integer = (value: unknown): number => Number(value);
/** JSON that may be null. */
const jsonValue = (value: unknown): any => parse(value);
/** A JSON object, `{}` when the column is null. */
const jsonObject = (value: unknown): any => parse(value) ?? {};
const jsonList = (value: unknown): any => parse(value) ?? [];
/** A value stored as it is typed (an enum's text). */
const stored = <T>(value: unknown): T => value as T;

/** Reads a record from a row; `columns` names the columns it reads (columns.ts selects them). */
export type Decoder<T> = ((row: Row) => T) & { readonly columns: readonly string[] };

/** A record read from a row, each field by its column's reader (in the record's field order). */
function decoder<T>(columns: { [K in keyof T]: (value: unknown) => T[K] }): Decoder<T> {
  const fields = Object.entries(columns) as Array<[string, (value: unknown) => unknown]>;
  const read = (row: Row) => {
    const out: Record<string, unknown> = {};
    for (const [field, read] of fields) out[field] = read(row[field]);
    return out as T;
  };
  return Object.assign(read, { columns: fields.map(([field]) => field) });
}

export const assistantOf = decoder<AssistantRecord>({
  assistant_id: text,
  graph_id: text,
  name: text,
  description: textOrNull,
  config: jsonObject,
  context: jsonObject,
  metadata: jsonObject,
  version: integer,
  created_at: text,
  updated_at: text,
});

const threadColumns = decoder<ThreadRecord>({
  thread_id: text,
  created_at: text,
  updated_at: text,
  state_updated_at: text,
  metadata: jsonObject,
  status: stored,
  values: jsonValue,
  // Only when set: a record's readers never see it (the store loads those values).
  values_checkpoint_id: (value) => (value as string | null) ?? undefined,
  interrupts: jsonObject,
  error: jsonValue,
  config: jsonObject,
  graph_id: textOrNull,
  assistant_id: textOrNull,
});

/**
 * A thread's record. A row that names the checkpoint of its values holds in `values` only the
 * fields a search compares (thread-values.ts): the record's values are null until loaded, and
 * those fields are not parsed.
 */
export const threadOf: Decoder<ThreadRecord> = Object.assign(
  (row: Row) => threadColumns(row.values_checkpoint_id ? { ...row, values: null } : row),
  { columns: threadColumns.columns },
);

export const runOf = decoder<RunRecord>({
  run_id: text,
  thread_id: text,
  assistant_id: text,
  created_at: text,
  updated_at: text,
  status: stored,
  metadata: jsonObject,
  multitask_strategy: stored,
  kwargs: jsonObject,
  identity: text,
  owner: textOrNull,
  attempt: integer,
  error: jsonValue,
});

export const pendingOf = decoder<PendingInterrupt>({
  thread_id: text,
  interrupt_id: text,
  graph_id: textOrNull,
  assistant_id: textOrNull,
  value: jsonValue,
  response_schema: jsonValue,
  ns: jsonList,
  created_at: text,
  deadline_at: textOrNull,
});

export const answerOf = decoder<AnswerRecord>({
  thread_id: text,
  interrupt_id: text,
  by: text,
  answer: jsonValue,
  at: text,
  run_id: textOrNull,
  state: stored,
});

/** An assistant's columns after its id: graph_id, name, description, config, context, metadata, version, updated_at. */
export function assistantColumns(a: AssistantRecord): unknown[] {
  return [
    a.graph_id,
    a.name,
    a.description,
    json(a.config),
    json(a.context),
    json(a.metadata),
    a.version,
    a.updated_at,
  ];
}

/** Shallow match of JSON values, as LangGraph Server's metadata filters. */
export function matches(target: Json | null | undefined, filter: Json | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([k, v]) => JSON.stringify(target?.[k]) === JSON.stringify(v));
}
