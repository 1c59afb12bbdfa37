/** Types of postgres-counters.mjs (plain JavaScript: the benchmark imports it too). */
import type pg from "pg";

export declare function reportCounters(pool: pg.Pool): Promise<void>;
export declare function heapBuffersRead(pool: pg.Pool, reader: pg.ClientBase, table: string): Promise<number>;
