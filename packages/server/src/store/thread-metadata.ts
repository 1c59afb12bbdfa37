/**
 * An index of threads by metadata, for the thread search's most common filter
 * (`client.threads.search({ metadata: { user_id } })`): without it a search reads every
 * thread's metadata (~3 us a row: 300 ms at 100,000 threads when the matches are few).
 *
 * `interlude_server_thread_metadata` holds one row per top-level key of each thread's metadata:
 * the key, the exact JSON text of its value (the text a filter's value is compared with,
 * thread-search.ts) and the thread. Triggers keep it in step with the threads table in the same
 * transaction as each insert, delete or change of metadata (an update writing the same metadata,
 * as every save of a thread does, costs only the comparison). Values longer than INDEXED_LENGTH
 * characters are left out (an index entry has a size limit on PostgreSQL): a filter on such a
 * value reads the metadata of every thread instead.
 */
import type { Db } from "./db.js";

export const INDEXED_LENGTH = 200;
const TABLE = "interlude_server_thread_metadata";
const THREADS = "interlude_server_threads";

/** SQLite: the exact text of the value of key `j.key` in `metadata` (its path quoted, see keyPath). */
const sqliteValue = (metadata: string) =>
  `${metadata} -> ('$."' || replace(replace(j.key, '\\', '\\\\'), '"', '\\"') || '"')`;

/** SQLite: the index rows of one thread's metadata (of every thread with `every`). */
const sqliteEntries = (row: "NEW" | "OLD" | "t", every = "") =>
  `SELECT j.key, ${sqliteValue(`${row}.metadata`)} AS value, ${row}.thread_id FROM ${every}json_each(${row}.metadata) j WHERE j.key IS NOT NULL AND length(${sqliteValue(`${row}.metadata`)}) <= ${INDEXED_LENGTH}`;

const sqliteRemoved = `DELETE FROM ${TABLE} WHERE (key, value, thread_id) IN (${sqliteEntries("OLD")});`;
const sqliteAdded = `INSERT INTO ${TABLE} (key, value, thread_id) ${sqliteEntries("NEW")} ON CONFLICT DO NOTHING;`;

/**
 * PostgreSQL: the index rows of one thread's metadata (`json`, not `jsonb`: the text as stored;
 * metadata that is not an object has none, where json_each would fail).
 */
const postgresEntries = (row: "NEW" | "OLD" | "t", every = "") =>
  `SELECT j.key, j.value::text, ${row}.thread_id FROM ${every}json_each(CASE WHEN json_typeof(${row}.metadata::json) = 'object' THEN ${row}.metadata::json ELSE '{}' END) j WHERE length(j.value::text) <= ${INDEXED_LENGTH}`;

/** The migration that creates the index, filled from the threads already there. */
export const THREAD_METADATA: Record<Db["dialect"], string> = {
  sqlite: `CREATE TABLE ${TABLE} (
     key text NOT NULL, value text NOT NULL, thread_id text NOT NULL, PRIMARY KEY (key, value, thread_id)) WITHOUT ROWID;
   INSERT INTO ${TABLE} (key, value, thread_id) ${sqliteEntries("t", `${THREADS} t, `)} ON CONFLICT DO NOTHING;
   CREATE TRIGGER ${TABLE}_added AFTER INSERT ON ${THREADS} BEGIN ${sqliteAdded} END;
   CREATE TRIGGER ${TABLE}_changed AFTER UPDATE OF metadata ON ${THREADS} WHEN OLD.metadata IS NOT NEW.metadata
     BEGIN ${sqliteRemoved} ${sqliteAdded} END;
   CREATE TRIGGER ${TABLE}_removed AFTER DELETE ON ${THREADS} BEGIN ${sqliteRemoved} END;`,
  postgres: `CREATE TABLE ${TABLE} (
     key text NOT NULL, value text NOT NULL, thread_id text NOT NULL, PRIMARY KEY (key, value, thread_id));
   INSERT INTO ${TABLE} (key, value, thread_id) ${postgresEntries("t", `${THREADS} t, `)} ON CONFLICT DO NOTHING;
   CREATE FUNCTION ${TABLE}_kept() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP <> 'INSERT' THEN
       DELETE FROM ${TABLE} WHERE (key, value, thread_id) IN (${postgresEntries("OLD")});
     END IF;
     IF TG_OP <> 'DELETE' THEN
       INSERT INTO ${TABLE} (key, value, thread_id) ${postgresEntries("NEW")} ON CONFLICT DO NOTHING;
     END IF;
     RETURN NULL;
   END $$;
   CREATE TRIGGER ${TABLE}_kept AFTER INSERT OR DELETE ON ${THREADS} FOR EACH ROW EXECUTE FUNCTION ${TABLE}_kept();
   CREATE TRIGGER ${TABLE}_changed AFTER UPDATE OF metadata ON ${THREADS}
     FOR EACH ROW WHEN (OLD.metadata IS DISTINCT FROM NEW.metadata) EXECUTE FUNCTION ${TABLE}_kept();`,
};

/**
 * The filter (columns of the threads table unqualified) of threads whose metadata holds `key`
 * with the value of JSON text `text`, by the index; undefined when the value is too long to be
 * indexed.
 */
export function indexedMetadata(key: string, text: string): { sql: string; params: unknown[] } | undefined {
  if ([...text].length > INDEXED_LENGTH) return undefined;
  return { sql: `thread_id IN (SELECT thread_id FROM ${TABLE} WHERE key = ? AND value = ?)`, params: [key, text] };
}
