/**
 * The head-cache options the SQLite and PostgreSQL savers share, with their defaults, checked
 * once here: a NaN or fractional limit would make a cache's trim comparisons never true, an
 * unbounded cache, so it is refused.
 */
import { InvalidSaverOptionError } from "../../errors/storage.js";

interface HeadCacheOptions {
  /** Threads whose newest checkpoint is kept in memory, least recently used dropped first (default 1000; 0 turns the cache off). */
  cachedThreads?: number;
  /** Bytes of stored data the cache keeps at most (default 32 MiB). */
  cachedBytes?: number;
}

export interface HeadCacheLimits {
  threads: number;
  bytes: number;
}

export function headCacheLimits(options: HeadCacheOptions): HeadCacheLimits {
  const threads = options.cachedThreads ?? 1000;
  const bytes = options.cachedBytes ?? 32 * 1024 * 1024;
  if (!Number.isInteger(threads) || threads < 0)
    throw new InvalidSaverOptionError(
      "cachedThreads",
      threads,
      "a whole number of threads, 0 or more (default 1000; 0 turns the cache off)",
    );
  if (!Number.isInteger(bytes) || bytes < 0)
    throw new InvalidSaverOptionError(
      "cachedBytes",
      bytes,
      "a whole number of bytes, 0 or more (default 33554432, 32 MiB)",
    );
  return { threads, bytes };
}
