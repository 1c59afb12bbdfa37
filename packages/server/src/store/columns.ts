/**
 * The columns each record is read from, named in every statement that reads whole records.
 * On PostgreSQL a prepared `SELECT *` fails ("cached plan must not change result type") once a
 * migration adds a column to its table, on every connection that prepared it before. In a
 * rolling upgrade, every server still running the previous version would then fail each such
 * read until restarted. A statement that names its columns keeps its result type, so a release
 * may add a column while the previous one still runs.
 */
import { answerOf, assistantOf, pendingOf, runOf, threadOf } from "./codec.js";

/** Words SQL reserves, quoted where they name a column. */
const RESERVED = new Set(["values"]);

/** The select list of `names` (less `without`), each prefixed by `alias` when given. */
function selectList(names: readonly string[], { alias, without = [] }: { alias?: string; without?: string[] } = {}) {
  return names
    .filter((name) => !without.includes(name))
    .map((name) => {
      const quoted = RESERVED.has(name) ? `"${name}"` : name;
      return alias ? `${alias}.${quoted}` : quoted;
    })
    .join(", ");
}

export const THREAD_COLUMNS = selectList(threadOf.columns);
/** The columns that hold a thread's state: the values, or the checkpoint they are read from (thread-values.ts). */
const VALUES = ["values", "values_checkpoint_id"];
/** For callers about to replace the state: it is the largest column to parse. */
export const THREAD_COLUMNS_BUT_VALUES = selectList(threadOf.columns, { without: VALUES });
/**
 * What a sync reads: not the pending interrupts, which it replaces without looking at them
 * (parsing them was wasted), nor the values unless asked (`THREAD_SYNC_COLUMNS_AND_VALUES`).
 */
export const THREAD_SYNC_COLUMNS = selectList(threadOf.columns, { without: [...VALUES, "interrupts"] });
export const THREAD_SYNC_COLUMNS_AND_VALUES = selectList(threadOf.columns, { without: ["interrupts"] });
export const RUN_COLUMNS = selectList(runOf.columns);
export const PENDING_COLUMNS = selectList(pendingOf.columns);
export const ANSWER_COLUMNS = selectList(answerOf.columns);
/** The answers' columns in a join where `interlude_server_answers` is called `a`. */
export const ANSWER_COLUMNS_OF_A = selectList(answerOf.columns, { alias: "a" });
export const ASSISTANT_COLUMNS = selectList(assistantOf.columns);
/** A version read as an assistant record: versions keep no `updated_at`, which is when the version was made. */
export const ASSISTANT_VERSION_COLUMNS = `${selectList(assistantOf.columns, { without: ["updated_at"] })}, created_at AS updated_at`;
