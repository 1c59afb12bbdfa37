/**
 * A thread's values (its state) as its record holds them. A sync stores them in the thread's row
 * at every answer, and for an agent whose conversation grows that copy becomes the largest write
 * of the answer: at 100 kB of state, ~60 kB of PostgreSQL's WAL per answer against ~12 kB for
 * everything else, checkpoint included (PERFORMANCE.md, "An answer's cost as the state grows").
 * The checkpoint the sync read holds the same values, stored as deltas. So a state larger than
 * `limit` bytes of JSON is not copied: the row names that checkpoint (`values_checkpoint_id`),
 * and whoever reads the thread gets the values from it, through `load`: the same values, as of
 * the same sync, as a copy would have held.
 *
 * The row's `values` then keeps the state's small top-level fields only (`searchFields`), for
 * a thread search's values filter to stay one SQL statement with its page (thread-search.ts):
 * a filter value no longer than FIELD_LIMIT can only equal such a field, since equal values
 * have JSON texts of the same length.
 *
 * A store without a loader (the store's own tests, `interlude recount`) keeps every state in
 * the row, as before.
 */

import { jsonLongerThan, jsonLongerThanIgnoring } from "../wire/json-length.js";
import { threadOf } from "./codec.js";
import { THREAD_COLUMNS } from "./columns.js";
import type { Db } from "./db.js";
import type { Json, ThreadRecord } from "./records.js";

export const VALUES_CHECKPOINT = "ALTER TABLE interlude_server_threads ADD COLUMN values_checkpoint_id text";

/**
 * The longest JSON text of a top-level field a row keeps beside its checkpoint's id, and so the
 * longest filter value a search compares in SQL alone. Filters are ids, flags and names; an
 * agent's conversation, the field that grows, is far longer.
 */
export const FIELD_LIMIT = 1024;

/** The values of `thread`'s checkpoint `checkpointId` (null: its graph is not served here). */
export type LoadValues = (thread: ThreadRecord, checkpointId: string) => Promise<Json | null>;

/**
 * Below this, a state is copied into the thread's row, as it always was: the copy costs little to
 * write, and keeps small threads' reads and values-filtered searches in SQL. The growing cost
 * measured above starts once states reach tens of kB.
 */
const DEFAULT_VALUES_LIMIT = 16 * 1024;

/** Checkpoints a read loads at once (the server's saver pool has 10 connections by default). */
const LOADS_AT_ONCE = 4;

/** Rows written before they kept their search fields, which every values filter must see. */
const UNSEARCHABLE = `FROM interlude_server_threads WHERE values_checkpoint_id IS NOT NULL AND "values" IS NULL`;
const HEALED_AT_ONCE = 100;

export class ThreadValues {
  private load?: LoadValues;
  private limit = Number.POSITIVE_INFINITY;
  private healing?: Promise<void>;

  /** From now on, states over `limit` bytes of JSON are read from their checkpoint through `load`. */
  readFromCheckpoints(load: LoadValues, limit = DEFAULT_VALUES_LIMIT): void {
    this.load = load;
    this.limit = limit;
    this.healing = undefined; // the new loader may read what the last could not
  }

  /**
   * What the row stores of `values`, read from checkpoint `checkpointId`: their JSON, or the
   * checkpoint's id and the fields a search compares when the values are read from it.
   */
  stored(values: Json | null, checkpointId: string | undefined): { text: string | null; checkpointId: string | null } {
    if (values === null || values === undefined) return { text: null, checkpointId: null };
    // Measured without serialising (a 200 kB state took 0.3 ms to write out only to be measured),
    // nor calling a message's toJSON: where the state is kept needs no exact length.
    if (this.load && checkpointId && jsonLongerThanIgnoring(values, this.limit))
      return { text: JSON.stringify(searchFields(values)), checkpointId };
    return { text: JSON.stringify(values), checkpointId: null };
  }

  /**
   * Once per process, before its first values-filtered search: a row written by the release
   * before search fields (its `values` null beside a checkpoint's id) gets them from its
   * checkpoint, unless a sync has rewritten it meanwhile. Without this such a thread would
   * match no filter until its next answer, which may be days away. That first search waits for
   * one checkpoint read per such row.
   */
  healed(db: Db): Promise<void> {
    this.healing ??= this.heal(db).catch((error) => {
      this.healing = undefined;
      throw error;
    });
    return this.healing;
  }

  /** In batches by thread id, so that memory stays bounded however many rows there are. */
  private async heal(db: Db): Promise<void> {
    if (!this.load) return;
    for (let after = ""; ; ) {
      const threads = (
        await db.all(
          `SELECT ${THREAD_COLUMNS} ${UNSEARCHABLE} AND thread_id > ? ORDER BY thread_id LIMIT ${HEALED_AT_ONCE}`,
          [after],
        )
      ).map(threadOf);
      if (threads.length === 0) return;
      after = threads.at(-1)!.thread_id;
      const checkpoints = new Map(threads.map((thread) => [thread, thread.values_checkpoint_id]));
      for (const thread of await this.fill(threads)) {
        if (thread.values === null) continue; // its graph is not served here: no filter matches it
        const named = checkpoints.get(thread)!;
        const { text, checkpointId } = this.stored(thread.values, named);
        await db.run(
          `UPDATE interlude_server_threads SET "values" = ?, values_checkpoint_id = ? WHERE thread_id = ? AND values_checkpoint_id = ? AND "values" IS NULL`,
          [text, checkpointId, thread.thread_id, named],
        );
      }
    }
  }

  /**
   * Records as read, with the values of those that name a checkpoint loaded from it (in place),
   * a few at a time: a page of threads on PostgreSQL in parallel, a search's every match without
   * holding them all in flight.
   */
  async fill(threads: ThreadRecord[]): Promise<ThreadRecord[]> {
    const marked = threads.filter((thread) => thread.values_checkpoint_id);
    let next = 0;
    const loader = async () => {
      while (next < marked.length) {
        const thread = marked[next++]!;
        thread.values = this.load ? await this.load(thread, thread.values_checkpoint_id!) : null;
        delete thread.values_checkpoint_id;
      }
    };
    await Promise.all(Array.from({ length: Math.min(LOADS_AT_ONCE, marked.length) }, loader));
    return threads;
  }
}

/**
 * The top-level fields of `values` whose JSON is at most FIELD_LIMIT long (`{}` for values that
 * are not an object, which no filter key matches).
 */
function searchFields(values: Json): Json {
  if (typeof values !== "object" || values === null || Array.isArray(values)) return {};
  const kept: Record<string, Json> = {};
  for (const [key, field] of Object.entries(values)) if (!jsonLongerThan(field, FIELD_LIMIT)) kept[key] = field as Json;
  return kept;
}

/**
 * Whether `values` hold `filter`: each top-level key's value has the same JSON text, as the
 * search compares stored values in SQL (thread-search.ts).
 */
export function matchesValues(values: Json | null, filter: Json): boolean {
  // A workflow's values may be a string or a list: no key matches, as in SQL.
  const held = values !== null && typeof values === "object" && !Array.isArray(values) ? values : {};
  return Object.entries(filter).every(
    ([key, value]) =>
      Object.hasOwn(held, key) && JSON.stringify((held as Record<string, unknown>)[key]) === JSON.stringify(value),
  );
}
