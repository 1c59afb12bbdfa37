/**
 * Every version of an assistant, as LangGraph Server keeps them: an update adds one, and any may
 * be made the assistant's current one again (setLatest). The assistant's own row is its current
 * version; this table holds them all, that one included.
 */
import { assistantColumns, assistantOf } from "./codec.js";
import { ASSISTANT_VERSION_COLUMNS } from "./columns.js";
import type { Db } from "./db.js";
import type { AssistantRecord } from "./records.js";

/** Each assistant's existing version is its first recorded one. */
export const ASSISTANT_VERSIONS = `CREATE TABLE interlude_server_assistant_versions (
     assistant_id text NOT NULL, version bigint NOT NULL, graph_id text NOT NULL, name text NOT NULL,
     description text, config text NOT NULL, context text, metadata text NOT NULL, created_at text NOT NULL,
     PRIMARY KEY (assistant_id, version));
   INSERT INTO interlude_server_assistant_versions (assistant_id, version, graph_id, name, description, config, context, metadata, created_at)
     SELECT assistant_id, version, graph_id, name, description, config, context, metadata, updated_at FROM interlude_server_assistants;`;

/** `assistant` as a version of its own, made at its `updated_at` (the last of assistantColumns). */
export function addVersion(db: Db, a: AssistantRecord): Promise<void> {
  return db.write(
    `INSERT INTO interlude_server_assistant_versions (assistant_id, graph_id, name, description, config, context, metadata, version, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [a.assistant_id, ...assistantColumns(a)],
  );
}

/** The number the assistant's next version takes. */
export async function nextVersion(db: Db, current: AssistantRecord): Promise<number> {
  const rows = await db.all<{ n: number | string | null }>(
    "SELECT MAX(version) AS n FROM interlude_server_assistant_versions WHERE assistant_id = ?",
    [current.assistant_id],
  );
  return Math.max(Number(rows[0]?.n ?? 0), current.version) + 1;
}

/** An assistant's versions, newest first; as assistant records (`updated_at`: when the version was made). */
export async function versionsOf(db: Db, assistantId: string, version?: number): Promise<AssistantRecord[]> {
  const rows = await db.all(
    `SELECT ${ASSISTANT_VERSION_COLUMNS} FROM interlude_server_assistant_versions WHERE assistant_id = ?${version === undefined ? "" : " AND version = ?"} ORDER BY version DESC`,
    version === undefined ? [assistantId] : [assistantId, version],
  );
  return rows.map(assistantOf);
}

export function deleteVersions(db: Db, assistantId: string): Promise<void> {
  return db.write("DELETE FROM interlude_server_assistant_versions WHERE assistant_id = ?", [assistantId]);
}
