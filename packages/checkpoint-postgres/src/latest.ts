/** The rows of interlude_read_head (schema.ts) and of a claim with it (SQL.claimLatest), as the checkpoint they hold. */
import type * as Kit from "@interlude/core/saver-kit";
import { blobKey } from "@interlude/core/saver-kit";
import type { QueryConfig } from "pg";
import { type CachedHead, type HeldBlob, namesRow } from "./head-cache.js";
import type { InlineValues } from "./inline-values.js";
import { named } from "./sql.js";

/** A checkpoint row as a load needs it. */
export interface CheckpointRow {
  id: string;
  parentId: string | null;
  record: string | Uint8Array;
  metadata: string | Uint8Array;
  /** Its small values (inline-values.ts); null: none, or a row written before they were kept there. */
  inline: string | null;
}

/** A checkpoint row with, when read along with it, its blobs and pending writes. */
export interface Loaded {
  row: CheckpointRow;
  /** channel + version -> blob (`null`: no blob); undefined: not read yet. */
  blobs?: ReadonlyMap<string, HeldBlob | null>;
  /** undefined: not read yet. */
  writes?: Kit.StoredWrite[];
  /** The head row's stamp, when the newest checkpoint was read (a head the cache may keep). */
  stamp?: string;
  /** Taken from the head cache, whose `blobs` hold the row's inline values too: nothing to keep. */
  cached?: InlineValues;
  /** The cached head it was taken from (with its private copies, if any). */
  head?: CachedHead;
  /** The head held when it was read, replaced since, with none of its blob rows rewritten: its rows fill in `blobs`. */
  since?: CachedHead;
  /** A head was held, and another process had replaced it. */
  contested?: boolean;
}

/** One row of interlude_read_head. */
export interface LatestRow {
  /**
   * 'c': the checkpoint; 's': the checkpoint held already; 'b': a blob; 'w': a pending write;
   * for a claim, 'n': not claimed, 'r': claimed, read again.
   */
  kind: "n" | "r" | "c" | "s" | "b" | "w";
  id: string | null;
  parent: string | null;
  channel: string | null;
  version: number | null;
  base: number | null;
  data: Buffer | null;
  extra: Buffer | null;
  complete: boolean;
  /**
   * pg returns bigint as text: the head row's stamp (null: the thread has no head row), a blob
   * row's xmin, or a write's place in order.
   */
  stamp: string | null;
  /** The 'c' row's inline values. */
  inline: string | null;
}

/**
 * The newest checkpoint the rows hold (null: the thread has none). `held`: the head the query
 * was sent with, which an 's' row says is still the newest.
 */
export function latestOf(rows: readonly LatestRow[], held: CachedHead | undefined): Loaded | null {
  const head = rows.find((r) => r.kind === "c" || r.kind === "s");
  if (!head) return null;
  const writes = rows
    .filter((r) => r.kind === "w")
    .sort((a, b) => Number(a.stamp) - Number(b.stamp))
    .map((r) => ({ taskId: r.id!, channel: r.channel!, data: r.data! }));
  if (head.kind === "s") {
    if (!held || held.id !== head.id || held.stamp !== head.stamp)
      throw new Error(`PostgreSQL reported checkpoint ${head.id} unchanged, which this saver did not send`);
    const { id, parentId, record, metadata } = held;
    const row = { id, parentId, record, metadata, inline: null };
    return { row, blobs: held.blobs, writes, stamp: held.stamp, cached: held.inline, head: held };
  }
  const row: CheckpointRow = {
    id: head.id!,
    parentId: head.parent,
    record: head.data!,
    metadata: head.extra!,
    inline: head.inline,
  };
  // Written before the checkpoint rows listed their versions: load() reads the blobs itself.
  const stamp = head.stamp ?? undefined;
  if (!head.complete) return { row, writes, stamp };
  const blobs = new Map<string, HeldBlob | null>();
  // The rows the query named come back only when one of them was rewritten, and then all do
  // (interlude_read_since): nothing of the held head is used.
  let since = namesRows(held) ? held : undefined;
  for (const r of rows) {
    if (r.kind !== "b") continue;
    const key = blobKey(r.channel!, r.version!);
    if (since && namesRow(since.blobs.get(key), since.inline, key)) since = undefined;
    blobs.set(key, { base: r.base, data: r.data, stamp: r.stamp ?? undefined });
  }
  if (since) for (const [key, blob] of since.blobs) if (!blobs.has(key)) blobs.set(key, blob);
  return { row, blobs, writes, stamp, since, contested: held !== undefined };
}

/**
 * The statement that loads the newest root checkpoint (`statement`, with its own leading
 * arguments), naming the head `held`: its blob rows too when it has any (the `Since` statements).
 */
export function latestQuery(
  statement: "readLatest" | "claimLatest" | "claimLatestIn",
  leading: unknown[],
  held: CachedHead | undefined,
): QueryConfig {
  if (namesRows(held)) return named(`${statement}Since`, [...leading, held.id, held.stamp, ...held.rows]);
  return named(statement, [...leading, held?.id ?? null, held?.stamp ?? null]);
}

/** Whether a load names the blob rows of the head it holds: it has some, and another process writes the thread. */
function namesRows(held: CachedHead | undefined): held is CachedHead & { rows: NonNullable<CachedHead["rows"]> } {
  return held?.rows !== undefined && held.contested;
}

/** A blob row of a load (SQL.blobChains), delta bases included. */
export interface BlobRow {
  channel: string;
  version: number;
  base: number | null;
  data: Buffer | null;
  /** The row version's xmin (head-cache.ts). */
  stamp: string;
}

/**
 * A head replaced since it was held (`Loaded.since`), as `tupleOf` copies from it: the values at
 * versions whose blob rows PostgreSQL did not send again (unchanged), not those kept inline,
 * which the new row carries itself.
 */
export function replacedHead(since: CachedHead | undefined) {
  const parsed = since?.parsed;
  if (!parsed) return undefined;
  const holds = (channel: string, version: number) => {
    const key = blobKey(channel, version);
    return namesRow(since.blobs.get(key), since.inline, key);
  };
  return { parsed, holds };
}
