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
 * A store without a loader (the store's own tests, `interlude recount`) keeps every state in
 * the row, as before.
 */
import type { Json, ThreadRecord } from "./records.js";

export const VALUES_CHECKPOINT = "ALTER TABLE interlude_server_threads ADD COLUMN values_checkpoint_id text";

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

export class ThreadValues {
  private load?: LoadValues;
  private limit = Number.POSITIVE_INFINITY;

  /** From now on, states over `limit` bytes of JSON are read from their checkpoint through `load`. */
  readFromCheckpoints(load: LoadValues, limit = DEFAULT_VALUES_LIMIT): void {
    this.load = load;
    this.limit = limit;
  }

  /**
   * What the row stores of `values`, read from checkpoint `checkpointId`: their JSON, or the
   * checkpoint's id when they are only read from it.
   */
  stored(values: Json | null, checkpointId: string | undefined): { text: string | null; checkpointId: string | null } {
    if (values === null || values === undefined) return { text: null, checkpointId: null };
    // Measured without serialising: a 200 kB state took 0.3 ms to write out only to be measured.
    if (this.load && checkpointId && jsonLongerThan(values, this.limit)) return { text: null, checkpointId };
    return { text: JSON.stringify(values), checkpointId: null };
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
 * Whether `value`'s JSON is longer than `limit` characters, reading no further than that many:
 * what JSON.stringify would write (through `toJSON`, as LangChain's messages are written),
 * escapes and number lengths estimated. A cycle counts as long.
 */
export function jsonLongerThan(value: unknown, limit: number): boolean {
  let left = limit;
  const over = (item: unknown): boolean => {
    if (left < 0) return true;
    if (item !== null && typeof item === "object" && typeof (item as { toJSON?: unknown }).toJSON === "function")
      item = (item as { toJSON(): unknown }).toJSON();
    if (typeof item === "string") left -= item.length + 2;
    else if (item === null || typeof item !== "object") left -= 5;
    else if (Array.isArray(item)) {
      left -= 2;
      for (const element of item) if (over(element)) return true;
    } else {
      left -= 2;
      for (const [key, field] of Object.entries(item)) {
        left -= key.length + 4;
        if (over(field)) return true;
      }
    }
    return left < 0;
  };
  return over(value);
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
