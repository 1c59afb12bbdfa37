/**
 * A thread search's page and count as the store answers them. Most searches are one SQL statement
 * (thread-search.ts). A values filter holding a value longer than the fields a row keeps beside
 * its checkpoint (thread-values.ts) is not: SQL passes the threads whose row lacks that field, and
 * they are compared here once their states are loaded.
 */
import { threadOf } from "./codec.js";
import { THREAD_COLUMNS, THREAD_COLUMNS_BUT_VALUES } from "./columns.js";
import type { Db } from "./db.js";
import type { ThreadRecord } from "./records.js";
import { comparesLoadedValues, filtersValues, type ThreadQuery, threadCount, threadSearch } from "./thread-search.js";
import { matchesValues, type ThreadValues } from "./thread-values.js";

/** The rows a search comparing loaded values reads first, and at most at once (valueMatches). */
const FIRST_CHUNK = 16;
const MAX_CHUNK = 512;

export class ThreadFinder {
  constructor(
    private readonly db: Db,
    private readonly threadValues: ThreadValues,
  ) {}

  /**
   * The threads of a search's page, `values: false` without their values (null). Values kept in
   * checkpoints are the caller's to load (`ThreadValues.fill`), except where the search loaded
   * them to compare them.
   */
  async page(query: ThreadQuery, options: { values?: boolean }): Promise<ThreadRecord[]> {
    if (filtersValues(query)) await this.threadValues.healed(this.db);
    if (comparesLoadedValues(query)) {
      const offset = query.offset ?? 0;
      const end = query.limit === undefined ? undefined : offset + query.limit;
      const matching: ThreadRecord[] = [];
      for await (const found of this.valueMatches(query, end)) {
        matching.push(...found);
        if (end !== undefined && matching.length >= end) break;
      }
      return matching.slice(offset, end);
    }
    const columns = options.values === false ? THREAD_COLUMNS_BUT_VALUES : THREAD_COLUMNS;
    return (await this.db.search(...threadSearch(this.db.dialect, query, columns))).map(threadOf);
  }

  /** How many threads a search matches (its page aside). */
  async count(query: ThreadQuery): Promise<number> {
    if (filtersValues(query)) await this.threadValues.healed(this.db);
    if (comparesLoadedValues(query)) {
      let n = 0;
      for await (const found of this.valueMatches(query)) n += found.length;
      return n;
    }
    const [row] = await this.db.search<{ n: number | string }>(...threadCount(this.db.dialect, query));
    return Number(row?.n ?? 0);
  }

  /**
   * The threads a search comparing loaded values matches, in order. Read in chunks, each twice
   * the last (from `enough` or FIRST_CHUNK rows to MAX_CHUNK), so a page stops loading states
   * once it has `enough` matches and a count holds one chunk's states at a time. Chunks are cut
   * by offset, as a client pages: a thread created meanwhile shifts the rows, so one already read
   * may come again, and is skipped.
   */
  private async *valueMatches(query: ThreadQuery, enough = 0): AsyncGenerator<ThreadRecord[]> {
    const seen = new Set<string>();
    let chunk = Math.min(Math.max(enough, FIRST_CHUNK), MAX_CHUNK);
    for (let offset = 0; ; offset += chunk, chunk = Math.min(2 * chunk, MAX_CHUNK)) {
      const rows = await this.db.search(...threadSearch(this.db.dialect, { ...query, limit: chunk, offset }));
      const threads = rows.map(threadOf).filter((t) => !seen.has(t.thread_id));
      for (const t of threads) seen.add(t.thread_id);
      const loaded = new Set(threads.filter((t) => t.values_checkpoint_id));
      await this.threadValues.fill(threads);
      yield threads.filter((t) => !loaded.has(t) || matchesValues(t.values, query.values!));
      if (rows.length < chunk) return;
    }
  }
}
