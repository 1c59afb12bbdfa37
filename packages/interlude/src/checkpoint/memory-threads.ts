/**
 * MemorySaver's threads: the most recently used ones live as tables (memory-tables.ts), the
 * others frozen, each in one string (memory-freeze.ts), and thawed when used again. A live
 * paused thread of a small graph takes ~2.3 kB (objects, arrays, boxed numbers); frozen, under
 * 1 kB. Most threads of a long-lived process wait for a human, untouched for minutes to days:
 * what they cost is what the process holds.
 */
import { InvalidSaverOptionError } from "../errors/storage.js";
import type { KeptRecords } from "./compact-records.js";
import { ThreadFreezer } from "./memory-freeze.js";
import { ThreadTables } from "./memory-tables.js";

/** Threads kept live by default: enough for every thread a busy process is running. */
const DEFAULT_LIVE_THREADS = 1000;

export class MemoryThreads {
  /** Every thread: live tables, or a frozen one's JSON. */
  private readonly all = new Map<string, ThreadTables | string>();
  /** Live threads, least recently used first. */
  private readonly live = new Map<string, ThreadTables>();
  private newest: string | undefined;
  private readonly limit: number;
  private readonly freezer: ThreadFreezer;

  constructor(records: KeptRecords, limit: number | undefined) {
    if (limit === undefined) limit = records.copies ? DEFAULT_LIVE_THREADS : Number.POSITIVE_INFINITY;
    else if (!Number.isInteger(limit) || limit < 1)
      throw new InvalidSaverOptionError("liveThreads", limit, "a whole number of threads, at least 1 (default 1000)");
    // Only JSON-serde savers freeze (their records are plain data): a limit they could not keep is refused, not ignored.
    else if (!records.copies)
      throw new InvalidSaverOptionError(
        "liveThreads",
        limit,
        "left unset with a custom serde (only threads under the default JSON serde are frozen)",
      );
    this.limit = limit;
    this.freezer = new ThreadFreezer(records);
  }

  /** The thread's tables, made live and most recently used; undefined: no such thread. */
  get(threadId: string): ThreadTables | undefined {
    const held = this.all.get(threadId);
    if (held === undefined) return undefined;
    if (threadId === this.newest) return held as ThreadTables;
    const tables = typeof held === "string" ? this.freezer.thaw(held) : held;
    if (typeof held === "string") this.all.set(threadId, tables);
    this.use(threadId, tables);
    return tables;
  }

  /** The thread's tables, made if missing; `touchedAt` stamps a new thread. */
  toWrite(threadId: string, touchedAt: number): ThreadTables {
    const tables = this.get(threadId);
    if (tables) return tables;
    const made = new ThreadTables(touchedAt);
    this.all.set(threadId, made);
    this.use(threadId, made);
    return made;
  }

  /**
   * One thread's tables (made live: list() then loads its checkpoints), or every thread's,
   * frozen ones thawed only for the caller.
   */
  *peek(threadId?: string): Generator<[string, ThreadTables]> {
    if (threadId !== undefined) {
      const tables = this.get(threadId);
      if (tables) yield [threadId, tables];
      return;
    }
    for (const [id, held] of this.all) yield [id, typeof held === "string" ? this.freezer.thaw(held) : held];
  }

  /** When a checkpoint was last put in the thread (for `ttlMs`). */
  touchedAt(threadId: string): number {
    const held = this.all.get(threadId);
    if (held === undefined) return 0;
    // A frozen thread's JSON starts with it: `[touchedAt,`.
    return typeof held === "string" ? Number(held.slice(1, held.indexOf(","))) : held.touchedAt;
  }

  ids(): string[] {
    return [...this.all.keys()];
  }

  delete(threadId: string): void {
    this.all.delete(threadId);
    this.live.delete(threadId);
    if (this.newest === threadId) this.newest = undefined;
  }

  private use(threadId: string, tables: ThreadTables): void {
    this.newest = threadId;
    this.live.delete(threadId);
    this.live.set(threadId, tables);
    while (this.live.size > this.limit) {
      const [oldest, cold] = this.live.entries().next().value!;
      this.live.delete(oldest);
      const frozen = this.freezer.freeze(cold);
      if (frozen !== undefined) this.all.set(oldest, frozen);
    }
  }
}
