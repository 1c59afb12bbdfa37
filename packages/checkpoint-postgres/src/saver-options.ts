/** The PostgresSaver's options, checked before anything is made. */
import { InvalidSaverOptionError } from "@interlude/core";
import type * as Kit from "@interlude/core/saver-kit";
import { everyName, headCacheLimits, KIT_OPTIONS, refuseUnknownOptions } from "@interlude/core/saver-kit";

/** Claims and idle threads run on the database clock: no `now` option. */
export interface PostgresSaverOptions extends Omit<Kit.SaverKitOptions, "now"> {
  /** Run `setup()` on first use (default true). Set false when migrations are run separately. */
  autoSetup?: boolean;
  /**
   * Threads whose newest checkpoint the saver keeps in memory, as stored, so that loading one
   * again reads only its pending writes and a "still the newest" from PostgreSQL (see
   * head-cache.ts; default 1000, 0 turns it off).
   */
  cachedThreads?: number;
  /** Bytes of stored data that cache keeps at most (default 32 MiB). */
  cachedBytes?: number;
  /**
   * Send the saves and claims of different threads that are ready in the same event-loop turn
   * in one exchange and one transaction (see group-commit.ts; default true). False: each in a
   * transaction of its own.
   */
  groupCommit?: boolean;
}

/** The database's clock decides claims and expiry: no `now`. */
const POSTGRES_OPTIONS = [
  ...KIT_OPTIONS.filter((option) => option !== "now"),
  ...everyName<Exclude<keyof PostgresSaverOptions, keyof Kit.SaverKitOptions>>({
    autoSetup: 1,
    cachedThreads: 1,
    cachedBytes: 1,
    groupCommit: 1,
  }),
];

/** The saver's settings from `options`; throws InvalidSaverOptionError for an unknown option or a bad value. */
export function settingsOf(options: PostgresSaverOptions) {
  refuseUnknownOptions("PostgresSaver", options, POSTGRES_OPTIONS, {
    schema: "the tables live in the connection's search_path; set it there (options: '-c search_path=...')",
  });
  const limits = headCacheLimits(options);
  const groupCommit = options.groupCommit ?? true;
  if (typeof groupCommit !== "boolean") throw new InvalidSaverOptionError("groupCommit", groupCommit, "true or false");
  return { limits, groupCommit, autoSetup: options.autoSetup ?? true };
}
