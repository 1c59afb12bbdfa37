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
  /**
   * The schema the tables live in (LangGraph's option), created at setup if missing; default:
   * the connections' search_path. A pool passed in with a schema is copied (database.ts).
   */
  schema?: string;
}

/** The database's clock decides claims and expiry: no `now`. */
const POSTGRES_OPTIONS = [
  ...KIT_OPTIONS.filter((option) => option !== "now"),
  ...everyName<Exclude<keyof PostgresSaverOptions, keyof Kit.SaverKitOptions>>({
    autoSetup: 1,
    cachedThreads: 1,
    cachedBytes: 1,
    groupCommit: 1,
    schema: 1,
  }),
];

/** The saver's settings from `options`; throws InvalidSaverOptionError for an unknown option or a bad value. */
export function settingsOf(options: PostgresSaverOptions) {
  refuseUnknownOptions("PostgresSaver", options, POSTGRES_OPTIONS);
  const limits = headCacheLimits(options);
  const groupCommit = options.groupCommit ?? true;
  if (typeof groupCommit !== "boolean") throw new InvalidSaverOptionError("groupCommit", groupCommit, "true or false");
  return { limits, groupCommit, autoSetup: options.autoSetup ?? true, schema: schemaOf(options.schema) };
}

/**
 * A schema's name as LangGraph's option gives it to `owner` (the saver, or the store: its one
 * option with a value to check); undefined: the connections' search_path.
 */
export function schemaOf(schema: unknown, owner = "PostgresSaver"): string | undefined {
  if (schema === undefined) return undefined;
  // PostgreSQL would cut a longer name to 63 bytes, and two such names could meet.
  if (typeof schema !== "string" || schema === "" || schema.includes("\0") || Buffer.byteLength(schema) > 63)
    throw new InvalidSaverOptionError(
      `${owner}'s schema`,
      JSON.stringify(schema),
      'a schema\'s name of 1 to 63 bytes, such as "langgraph"',
    );
  return schema;
}

/**
 * The options of `new PostgresSaver(pool, options)`, or of LangGraph's `new PostgresSaver(pool,
 * serde, options)` with no serializer (Interlude's goes in the options, as `serde`).
 */
export function optionsOf(
  second: PostgresSaverOptions | undefined,
  third: PostgresSaverOptions | undefined,
): PostgresSaverOptions {
  if (third === undefined) return second ?? {};
  if (second === undefined) return third;
  // A serializer second is refused as such (it goes in the options as { serde }).
  refuseUnknownOptions("PostgresSaver", second, POSTGRES_OPTIONS);
  throw new InvalidSaverOptionError(
    "PostgresSaver's third argument",
    JSON.stringify(third),
    "left out when options are given second (LangGraph's form takes them third after an undefined second)",
  );
}
