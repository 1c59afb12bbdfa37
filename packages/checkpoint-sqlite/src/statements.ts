import type Database from "better-sqlite3";

/** Every statement the saver runs, prepared once per connection. */
const SQL = {
  /** The newest checkpoint is the head (heads.head_id is not kept up to date since schema 6). */
  head: "SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ?",
  /** When a checkpoint of (thread, namespace) was last written, to within `ACTIVITY_GRAIN_MS` (saver.ts). */
  writtenAt: "SELECT updated_at FROM heads WHERE thread_id = ? AND checkpoint_ns = ?",
  setHead: `INSERT INTO heads (thread_id, checkpoint_ns, head_id, updated_at) VALUES (?, ?, ?, ?)
      ON CONFLICT (thread_id, checkpoint_ns) DO UPDATE SET head_id = MAX(head_id, excluded.head_id), updated_at = excluded.updated_at`,
  hasBlob: "SELECT 1 FROM blobs WHERE thread_id = ? AND checkpoint_ns = ? AND channel = ? AND version = ?",
  putBlob:
    "INSERT OR REPLACE INTO blobs (thread_id, checkpoint_ns, channel, version, base, data, packing) VALUES (?, ?, ?, ?, ?, ?, ?)",
  blob: "SELECT base, data, packing FROM blobs WHERE thread_id = ? AND checkpoint_ns = ? AND channel = ? AND version = ?",
  blobBases: "SELECT checkpoint_ns AS ns, channel, version, base FROM blobs WHERE thread_id = ?",
  deleteBlob: "DELETE FROM blobs WHERE thread_id = ? AND checkpoint_ns = ? AND channel = ? AND version = ?",
  putBlobPart:
    "INSERT OR REPLACE INTO blob_parts (thread_id, checkpoint_ns, channel, version, part, data) VALUES (?, ?, ?, ?, ?, ?)",
  blobParts:
    "SELECT data FROM blob_parts WHERE thread_id = ? AND checkpoint_ns = ? AND channel = ? AND version = ? ORDER BY part",
  deleteBlobParts: "DELETE FROM blob_parts WHERE thread_id = ? AND checkpoint_ns = ? AND channel = ? AND version = ?",
  putCheckpoint: `INSERT OR REPLACE INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_id, created_at, record, metadata, inline, packing)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  checkpoint: `SELECT checkpoint_id AS id, parent_id AS "parentId", created_at AS "createdAt", record, metadata, inline, packing FROM checkpoints
      WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`,
  latest: `SELECT checkpoint_id AS id, parent_id AS "parentId", created_at AS "createdAt", record, metadata, inline, packing FROM checkpoints
      WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id DESC LIMIT 1`,
  /** A checkpoint's small values (inline.ts), for a put that carries them on when the head cache lacks them. */
  inlineOf: "SELECT record, inline FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
  pruneRows:
    'SELECT checkpoint_ns AS ns, checkpoint_id AS id, created_at AS "createdAt", record FROM checkpoints WHERE thread_id = ?',
  deleteCheckpoint: "DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
  deleteCheckpointWrites: "DELETE FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
  /** After a rewind: a namespace left without checkpoints has no head; the others' head is their newest left. */
  dropEmptyHead:
    "DELETE FROM heads WHERE thread_id = ? AND checkpoint_ns = ? AND NOT EXISTS (SELECT 1 FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ?)",
  resetHead:
    "UPDATE heads SET head_id = (SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ?) WHERE thread_id = ? AND checkpoint_ns = ?",
  writes:
    'SELECT task_id AS "taskId", idx, channel, data, packing FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? ORDER BY seq',
  maxSeq: "SELECT COALESCE(MAX(seq), 0) FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
  addWrite: `INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, data, seq, packing) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT DO NOTHING`,
  replaceWrite: `INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, data, seq, packing) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO UPDATE SET channel = excluded.channel, data = excluded.data, packing = excluded.packing`,
  /** Moves when another connection commits (not this one): what the head cache checks. */
  dataVersion: "PRAGMA data_version",
  claim: "SELECT owner, expires_at FROM claims WHERE thread_id = ?",
  /** Takes the claim unless another owner holds it unexpired (thread, owner, expires_at, the owner it replaces or null, now): 1 change when taken. */
  takeClaim: `INSERT INTO claims (thread_id, owner, expires_at) VALUES (?, ?, ?)
      ON CONFLICT (thread_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
      WHERE owner = excluded.owner OR owner = ? OR expires_at <= ?`,
  release: "DELETE FROM claims WHERE thread_id = ? AND owner = ?",
  expiredClaims: "DELETE FROM claims WHERE expires_at <= ?",
  idleThreads: "SELECT thread_id FROM heads GROUP BY thread_id HAVING MAX(updated_at) < ?",
  threadsWithOld: "SELECT DISTINCT thread_id FROM checkpoints WHERE created_at < ?",
} as const;

/** Statements that return the first column instead of a row object. */
const PLUCKED = new Set<string>([
  "dataVersion",
  "head",
  "writtenAt",
  "hasBlob",
  "blobParts",
  "maxSeq",
  "idleThreads",
  "threadsWithOld",
]);

const DELETE_THREAD = ["checkpoints", "blobs", "blob_parts", "writes", "heads"].map(
  (table) => `DELETE FROM ${table} WHERE thread_id = ?`,
);

export type Statements = { [K in keyof typeof SQL]: Database.Statement } & { deleteThread: Database.Statement[] };

export function prepareStatements(db: Database.Database): Statements {
  const prepared = {} as Record<string, Database.Statement>;
  for (const [name, sql] of Object.entries(SQL)) {
    const statement = db.prepare(sql);
    prepared[name] = PLUCKED.has(name) ? statement.pluck() : statement;
  }
  return {
    ...(prepared as { [K in keyof typeof SQL]: Database.Statement }),
    deleteThread: DELETE_THREAD.map((sql) => db.prepare(sql)),
  };
}

export interface CheckpointRow {
  id: string;
  /** As stored (see parent-link.ts) until the load turns it back into the id. */
  parentId: string | Uint8Array | null;
  createdAt: number;
  record: string | Buffer;
  metadata: string | Buffer;
  /** Small values kept in the row (inline.ts); null in rows of schema 6 and earlier. */
  inline: string | null;
  /** How `metadata` is stored (packing.ts); null: as the keeper wrote it. */
  packing: number | null;
}
