/**
 * The assistants' records: each assistant's current version in its own row, every version in
 * assistant-versions.ts. Assistants are few and read up to three times per run, so reads are
 * cached (`assistantCacheMs`) and metadata filters run in JS.
 */
import { addVersion, deleteVersions, nextVersion, versionsOf } from "./assistant-versions.js";
import { assistantColumns, assistantOf, matches } from "./codec.js";
import { ASSISTANT_COLUMNS } from "./columns.js";
import { deleteAssistantCrons } from "./crons.js";
import type { Db } from "./db.js";
import type { AssistantRecord, Json } from "./records.js";

export interface AssistantOptions {
  /**
   * Keep assistants in memory for this long (ms; Infinity when this process is the only writer
   * of the assistants table, as on SQLite). With several processes, each change is told to the
   * others (`onAssistantChange`, the bus) and they call `forget`; the age limit covers a
   * notification lost while the bus reconnected.
   */
  assistantCacheMs?: number;
  /** Called after this process changed an assistant (to tell the other processes). */
  onAssistantChange?: (assistantId: string) => Promise<void>;
}

/** LangGraph Server's sort fields of an assistant search (the SDK's `AssistantSortBy`): columns of the same names. */
export const ASSISTANT_SORT_FIELDS = ["assistant_id", "graph_id", "name", "created_at", "updated_at"] as const;

export interface AssistantOrder {
  sort_by: (typeof ASSISTANT_SORT_FIELDS)[number];
  sort_order: "asc" | "desc";
}

export class Assistants {
  /** Assistants by id (undefined: no such assistant), with when they were read. */
  private readonly cache = new Map<string, { found: AssistantRecord | undefined; at: number }>();
  /** Counts the assistants forgotten, so that a read overtaken by a change is not cached. */
  private forgotten = 0;

  constructor(
    private readonly db: Db,
    private readonly options: AssistantOptions = {},
  ) {}

  /** Drops an assistant from the cache (another process changed it). */
  forget(id: string): void {
    this.forgotten++;
    this.cache.delete(id);
  }

  private async changed(id: string): Promise<void> {
    this.forget(id);
    await this.options.onAssistantChange?.(id);
  }

  /** Adds `a` with its first version (both or neither); false when its id is taken. */
  async insert(a: AssistantRecord): Promise<boolean> {
    const inserted = await this.db.tx(async (db) => {
      const changes = await db.run(
        `INSERT INTO interlude_server_assistants (assistant_id, created_at, graph_id, name, description, config, context, metadata, version, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (assistant_id) DO NOTHING`,
        [a.assistant_id, a.created_at, ...assistantColumns(a)],
      );
      if (changes > 0) await addVersion(db, a);
      return changes > 0;
    });
    if (inserted) await this.changed(a.assistant_id);
    return inserted;
  }

  /**
   * A new version of the assistant (assistant-versions.ts), `change` made to its current one,
   * recorded and made current; undefined when there is no such assistant. Its row is locked
   * while read and written, so that edits made at once each build on the one before (no version
   * number taken twice, no change lost).
   */
  async edit(id: string, change: (current: AssistantRecord) => AssistantRecord): Promise<AssistantRecord | undefined> {
    const edited = await this.db.tx(async (db) => {
      const lock = db.dialect === "postgres" ? " FOR UPDATE" : "";
      const rows = await db.all(
        `SELECT ${ASSISTANT_COLUMNS} FROM interlude_server_assistants WHERE assistant_id = ?${lock}`,
        [id],
      );
      if (!rows[0]) return undefined;
      const current = assistantOf(rows[0]);
      const next = {
        ...change(current),
        version: await nextVersion(db, current),
        updated_at: new Date().toISOString(),
      };
      await addVersion(db, next);
      await db.write(...saveStatement(next));
      return next;
    });
    if (edited) await this.changed(id);
    return edited;
  }

  /** The assistant's versions, newest first: that one only (`version`), or those whose metadata holds `metadata`. */
  async versions(assistantId: string, filter: { version?: number; metadata?: Json } = {}): Promise<AssistantRecord[]> {
    const versions = await versionsOf(this.db, assistantId, filter.version);
    return versions.filter((v) => matches(v.metadata, filter.metadata));
  }

  /** Makes `a` (one of its assistant's versions) current again. */
  async makeCurrent(a: AssistantRecord): Promise<void> {
    await this.db.run(...saveStatement(a));
    await this.changed(a.assistant_id);
  }

  async get(id: string): Promise<AssistantRecord | undefined> {
    const cached = this.cache.get(id);
    const maxAge = this.options.assistantCacheMs ?? 0;
    if (cached && Date.now() - cached.at < maxAge) return cached.found;
    const at = Date.now();
    const forgotten = this.forgotten;
    const rows = await this.db.all(
      `SELECT ${ASSISTANT_COLUMNS} FROM interlude_server_assistants WHERE assistant_id = ?`,
      [id],
    );
    const found = rows[0] && assistantOf(rows[0]);
    // Misses too (a run naming its graph id first looks for an assistant of that id): insert forgets them.
    if (maxAge > 0 && forgotten === this.forgotten) this.cache.set(id, { found, at });
    return found;
  }

  /** The assistants `filter` matches, in `order` (oldest first when not given). */
  async search(
    filter: { graph_id?: string; name?: string; metadata?: Json } = {},
    order: AssistantOrder = { sort_by: "created_at", sort_order: "asc" },
  ): Promise<AssistantRecord[]> {
    const rows = await this.db.all(
      `SELECT ${ASSISTANT_COLUMNS} FROM interlude_server_assistants ${orderBy(this.db.dialect, order)}`,
    );
    return rows
      .map(assistantOf)
      .filter(
        (a) =>
          (!filter.graph_id || a.graph_id === filter.graph_id) &&
          (!filter.name || a.name.includes(filter.name)) &&
          matches(a.metadata, filter.metadata),
      );
  }

  /** Deletes the assistant with its versions and crons; false when there was none. */
  async delete(id: string): Promise<boolean> {
    const deleted = await this.db.tx(async (db) => {
      await deleteVersions(db, id);
      await deleteAssistantCrons(db, id);
      return (await db.run("DELETE FROM interlude_server_assistants WHERE assistant_id = ?", [id])) > 0;
    });
    await this.changed(id);
    return deleted;
  }
}

/**
 * The ORDER BY of an assistant search, ties broken by id in the same direction (a page never
 * repeats or skips one). Text compares by code point on both databases: SQLite does by default,
 * PostgreSQL follows the database's locale unless told `COLLATE "C"` (and would put "B" after "a").
 */
function orderBy(dialect: Db["dialect"], { sort_by, sort_order }: AssistantOrder): string {
  // Spelled into the SQL, so checked against the columns even though the type allows no other.
  if (!ASSISTANT_SORT_FIELDS.includes(sort_by)) throw new Error(`Not a sort field of assistants: ${sort_by}`);
  const collate = dialect === "postgres" ? ' COLLATE "C"' : "";
  const direction = sort_order === "asc" ? "ASC" : "DESC";
  return `ORDER BY ${sort_by}${collate} ${direction}, assistant_id${collate} ${direction}`;
}

/** The statement making `a` its assistant's current version. */
function saveStatement(a: AssistantRecord): [string, unknown[]] {
  return [
    "UPDATE interlude_server_assistants SET graph_id = ?, name = ?, description = ?, config = ?, context = ?, metadata = ?, version = ?, updated_at = ? WHERE assistant_id = ?",
    [...assistantColumns(a), a.assistant_id],
  ];
}
