import type Database from "better-sqlite3";

/**
 * Schema migrations, applied in order and recorded in `schema_version`. Never edit a shipped
 * migration: add the next one.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE checkpoints (
     thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, checkpoint_id TEXT NOT NULL,
     parent_id TEXT, created_at INTEGER NOT NULL, record BLOB NOT NULL, metadata BLOB NOT NULL,
     PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)) WITHOUT ROWID;
   CREATE INDEX checkpoints_created_at ON checkpoints (created_at);
   CREATE TABLE blobs (
     thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, channel TEXT NOT NULL, version REAL NOT NULL,
     base REAL, data BLOB,
     PRIMARY KEY (thread_id, checkpoint_ns, channel, version)) WITHOUT ROWID;
   CREATE TABLE writes (
     thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, checkpoint_id TEXT NOT NULL,
     task_id TEXT NOT NULL, idx INTEGER NOT NULL, channel TEXT NOT NULL, data BLOB NOT NULL, seq INTEGER NOT NULL,
     PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)) WITHOUT ROWID;
   CREATE TABLE heads (
     thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, head_id TEXT NOT NULL, updated_at INTEGER NOT NULL,
     PRIMARY KEY (thread_id, checkpoint_ns)) WITHOUT ROWID;
   CREATE INDEX heads_updated_at ON heads (updated_at);
   CREATE TABLE claims (thread_id TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID;`,
  // No query reads it (the idle-thread sweep groups heads by thread, a scan of the table), and
  // keeping it cost every put one more page written to the WAL: ~1 of the 5 a put touched.
  `DROP INDEX IF EXISTS heads_updated_at;`,
  // Read only by prune({ olderThan }) across threads (maintenance, where a scan of the table is
  // fine), yet kept by every put: one more page per commit, and ~7% of a chat thread's file.
  `DROP INDEX IF EXISTS checkpoints_created_at;`,
  // No change to the tables: from here a record may omit `id` and `ts`, which the row's
  // checkpoint_id and created_at hold (record.ts). The version stops an older package, which
  // would return checkpoints without ids, from opening the file.
  `SELECT 1;`,
  // From here a record or metadata may be kept as an array (the runtime's usual shapes without
  // their field names, record.ts), a parent id relative to the row's id (parent-link.ts), and a
  // large delta deflated, in parts (packing.ts): an older package would return the array as the
  // checkpoint, the relative form as the parent id and the deflated bytes as the value.
  `ALTER TABLE blobs ADD COLUMN packing INTEGER;
   CREATE TABLE blob_parts (
     thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, channel TEXT NOT NULL, version REAL NOT NULL,
     part INTEGER NOT NULL, data BLOB NOT NULL,
     PRIMARY KEY (thread_id, checkpoint_ns, channel, version, part)) WITHOUT ROWID;`,
  // No change to the tables: from here the head is the newest row of \`checkpoints\`, and a put
  // refreshes its \`heads\` row (the thread's last activity, for the idle sweep) only when that is
  // a second old or more: one page fewer written per put. An older package would read a stale
  // head_id as the head.
  `SELECT 1;`,
  // Small values in the checkpoint row (inline.ts), and records with numbered versions
  // (record.ts): an older package would find no blob for the values and misread the records.
  `ALTER TABLE checkpoints ADD COLUMN inline TEXT;`,
  // A checkpoint's metadata and a pending write's data deflated when their row would not fit its
  // page (packing.ts): an older package would return the deflated bytes.
  `ALTER TABLE checkpoints ADD COLUMN packing INTEGER;
   ALTER TABLE writes ADD COLUMN packing INTEGER;`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * The version recorded in `table` (0 when the table does not exist yet), read without the
 * write lock: a file already at the current schema is opened without taking it, since another
 * connection of this process may hold it in a batch that commits only once the event loop
 * turns (group-commit.ts), and the busy handler would block that turn until SQLITE_BUSY.
 */
export function recordedVersion(db: Database.Database, table: string): number {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
  if (!exists) return 0;
  return (db.prepare(`SELECT MAX(version) FROM ${table}`).pluck().get() as number | null) ?? 0;
}

/** Brings the file to the current schema; safe when several processes open it at once. */
export function migrate(db: Database.Database): void {
  // A read-only handle can only use the schema as it is; writes will fail as StorageError.
  if (db.readonly || recordedVersion(db, "schema_version") === MIGRATIONS.length) return;
  db.transaction(() => {
    db.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
    const row = db.prepare("SELECT MAX(version) AS version FROM schema_version").get() as { version: number | null };
    const current = row.version ?? 0;
    if (current > MIGRATIONS.length) {
      throw new Error(
        `the database has schema version ${current}, newer than this @interlude/checkpoint-sqlite (${MIGRATIONS.length}); upgrade the package`,
      );
    }
    for (let version = current + 1; version <= MIGRATIONS.length; version++) {
      db.exec(MIGRATIONS[version - 1]!);
      db.prepare("INSERT INTO schema_version (version) VALUES (?)").run(version);
    }
  }).immediate();
}
